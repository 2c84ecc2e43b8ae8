# make test: create .venv when missing, install the project with its test
# extras, run the whole suite (MicroPython runs included).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: test bench play simulate install-pi clean firmware-test

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,ip,sim]'
	touch $@

test: $(VENV)/.installed
	$(PY) -m pytest -q

# MICROPYTHON_SOURCE=path/to/micropython (a checkout) adds the heap of the firmware frozen in.
bench: $(VENV)/.installed
	for script in bench/bench_*.py bench/firmware_heap.py; do $(PY) $$script || exit 1; done
	$(PY) bench/frozen_heap.py $(MICROPYTHON_SOURCE)

# The bench simulator: the virtual replica drawn in the terminal (--machine nimatron for the other).
simulate: $(VENV)/.installed
	$(VENV)/bin/controller --simulate

play: $(VENV)/.installed
	$(VENV)/bin/controller play drnim

# The Pico firmware on the emulated board: every scenario, then the firmware's own tests.
firmware-test: $(VENV)/.installed
	$(VENV)/bin/controller firmware test --emulate tests/scenarios/*.txt tests/scenarios/*.sim
	$(PY) -m pytest -q tests/test_firmware*.py tests/test_protocol.py

# On a Raspberry Pi: install and start the service (see README).
install-pi:
	sudo bash systemd/install.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
