# make test: create .venv when missing, install the project with its test
# extras, fetch the web page's MicroPython port when npm is there, and run the
# whole suite in parallel (MicroPython runs included).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# pytest-xdist's workers: auto is two a core (tests/conftest.py); PYTEST_WORKERS=0 runs the suite in one
# process. --dist loadfile keeps each test file on one worker, so what a file builds once (a browser, a
# broker, the wheel, the printed parts' renders) is built once.
PYTEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadfile
# MicroPython's WebAssembly port, pinned in web/package-lock.json (the browser tests need it)
WEB_PORT := web/node_modules/@micropython/micropython-webassembly-pyscript/micropython.wasm

.PHONY: test bench play simulate install-pi clean firmware-test

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,ip,sim]'
	touch $@

test: $(VENV)/.installed
	@if [ ! -f $(WEB_PORT) ]; then \
		if command -v npm >/dev/null; then cd web && npm ci --ignore-scripts --no-audit --no-fund; \
		else echo "npm is missing: the browser tests will be skipped (Debian: apt-get install npm)"; fi; \
	fi
	$(PY) -m pytest -q $(PYTEST_PARALLEL)

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
	$(VENV)/bin/controller firmware test --emulate unix
	$(PY) -m pytest -q $(PYTEST_PARALLEL) tests/test_firmware*.py tests/test_protocol.py

# On a Raspberry Pi: install and start the service (see README).
install-pi:
	sudo bash systemd/install.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
