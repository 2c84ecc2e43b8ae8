# make test: create .venv when missing, install the project with its test
# extras, fetch the web page's MicroPython port when npm is there, and run the
# whole suite in parallel (MicroPython runs included).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The venv, made afresh when pip does not run in it or its Python is too old for the controller: Debian's
# python3 without its python3-venv package leaves a .venv with no pip (and says to install python3-venv),
# and Ubuntu 22.04's python3 is 3.10, for which pip only says "ResolutionImpossible"; each kept that .venv
# until it was deleted by hand. An older $(PYTHON) is refused in one line naming its version.
NEEDS_PYTHON = import sys; sys.version_info >= (3, 11) or sys.exit("$(PYTHON) is Python %d.%d: the controller needs 3.11 or newer (make PYTHON=python3.11 ...)" % sys.version_info[:2])
VENV_WITH_PIP = $(PY) -c 'import pip; $(NEEDS_PYTHON)' 2>/dev/null || { $(PYTHON) -c '$(NEEDS_PYTHON)' && $(PYTHON) -m venv --clear $(VENV); }
# pytest-xdist's workers: auto is two a core (tests/conftest.py); PYTEST_WORKERS=0 runs the suite in one
# process. --dist loadfile keeps each test file on one worker, so what a file builds once (a browser, a
# broker, the wheel, the printed parts' renders) is built once; --no-loadscope-reorder hands the files
# out in the suite's own order, the longest first (tests/conftest.py), where xdist would start the files
# with the most tests first and leave the long files of a few tests for last.
PYTEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder
# MicroPython's WebAssembly port, pinned in web/package-lock.json (the browser tests need it)
WEB_PORT := web/node_modules/@micropython/micropython-webassembly-pyscript/micropython.wasm
# axe-core, pinned there too: the accessibility tests run it in the page
AXE := web/node_modules/axe-core/axe.min.js

.PHONY: test bench play simulate install-pi pi-offline clean firmware-test pico-emulator catalogs constraints

$(VENV)/.installed: pyproject.toml constraints.txt
	@$(VENV_WITH_PIP)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test,ip,sim]'
	touch $@

# What the simulator and the terminal game need, the sim extra alone: a newcomer's first `make simulate`
# does not wait for the test tools (about 400 MB), and a venv that has them already has it.
$(VENV)/.simulator: pyproject.toml constraints.txt
	@$(VENV_WITH_PIP)
	$(PY) -m pip install --quiet -c constraints.txt -e '.[sim]'
	touch $@

# constraints.txt afresh: the newest release of every package the extras need, resolved in a scratch
# virtualenv (make test then says whether the suite passes with them).
constraints:
	scratch=$$(mktemp -d) && $(PYTHON) -m venv $$scratch \
		&& $$scratch/bin/pip install --quiet -e '.[test,ip,sim]' \
		&& { sed -n '/^#/p' constraints.txt; $$scratch/bin/pip freeze --all --exclude-editable --exclude pip; } > constraints.txt.new \
		&& mv constraints.txt.new constraints.txt; rm -rf $$scratch

# The suite's Python processes keep their bytecode (in __pycache__, which git ignores) even where
# PYTHONDONTWRITEBYTECODE is set, as on the machine the suite is timed on: without it each xdist worker
# rewrote every test module's assertions afresh, and each of the suite's Python processes (about 140
# `python -m controller` runs) compiled every module it imported, a tenth of the suite's time.
test: $(VENV)/.installed pico-emulator
	@if [ ! -f $(WEB_PORT) ] || [ ! -f $(AXE) ]; then \
		if command -v npm >/dev/null; then cd web && npm ci --ignore-scripts --no-audit --no-fund; \
		else echo "npm is missing: the browser tests will be skipped (Debian: apt-get install npm)"; fi; \
	fi
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q $(PYTEST_PARALLEL)

# MICROPYTHON_SOURCE=path/to/micropython (a checkout) adds the heap of the firmware frozen in.
bench: $(VENV)/.installed
	for script in bench/bench_*.py bench/firmware_heap.py bench/sd_wear.py; do $(PY) $$script || exit 1; done
	$(PY) bench/frozen_heap.py $(MICROPYTHON_SOURCE)

# The bench simulator: the virtual replica drawn in the terminal (--machine nimatron for the other).
simulate: $(VENV)/.simulator
	$(VENV)/bin/controller --simulate

play: $(VENV)/.simulator
	$(VENV)/bin/controller play drnim

# rp2040js, the emulator of the Pico's RP2040 (controller/firmware/pico), as its lock pins it;
# without npm the tests that need it say so and are skipped.
PICO_EMULATOR := controller/firmware/pico/node_modules/rp2040js/package.json
pico-emulator:
	@if [ ! -f $(PICO_EMULATOR) ] && command -v npm >/dev/null; then \
		cd controller/firmware/pico && npm ci --ignore-scripts --no-audit --no-fund; fi

# The Pico firmware on an emulated Pico running the official MicroPython (CONTROLLER_PICO_UF2 and
# CONTROLLER_RP2040_BOOTROM name its files: firmware/README.md): every scenario, as the simulator plays
# it, and the real deploys (the tests marked firmware_test).
firmware-test: $(VENV)/.installed pico-emulator
	@if [ -z "$$CONTROLLER_PICO_UF2" ]; then \
		echo "firmware-test: the emulated Pico's tests skipped: CONTROLLER_PICO_UF2 names no MicroPython" \
			"for the Pico (firmware/README.md says where to get it)"; \
	else \
		$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist load -m firmware_test tests/test_firmware_pico*.py; \
	fi

# After changing a visitor's text or a translation: the template, each language's .po brought up to
# date, its .mo and the page's JSON (Babel, from the test extra); then remake the cards.
catalogs: $(VENV)/.installed
	$(PY) -m controller.language.catalogs
	$(PY) -m controller.cards
	$(PY) -m controller.hardware.pinmap --write-docs

# On a Raspberry Pi: install and start the service (see README); WHEELS=DIR installs from a folder of
# wheels, without internet.
install-pi:
	sudo bash systemd/install.sh $(if $(WHEELS),--wheels $(WHEELS))

# For a Raspberry Pi without internet (README, "Without internet"), on a computer with it: $(PI_OFFLINE)
# holds the commit checked out and, in its wheels/, every wheel the Pi's install takes (install.sh --wheels
# wheels): the pi and telemetry extras' with their dependencies, and what builds the controller there
# (pyproject.toml's build-system), for each Python of PI_PYTHONS on each architecture of PI_ARCHS (aarch64
# is the 64-bit Raspberry Pi OS, armv7l the 32-bit one: `python3 -V` and `getconf LONG_BIT` on the Pi).
# Manylinux wheels go up to bookworm's glibc, 2.36. A wheel put in $(PI_WHEELS) beforehand (a Python
# PyPI has no lgpio built for) is used and packed too.
PI_PYTHONS ?= 3.11
PI_ARCHS ?= aarch64 armv7l
PI_WHEELS := build/pi-wheels
PI_OFFLINE := build/drnim-controller-pi.tar.gz
pi-offline:
	@$(VENV_WITH_PIP)
	mkdir -p $(PI_WHEELS)
	@builds=$$($(PY) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"])') \
		&& for python in $(PI_PYTHONS); do for arch in $(PI_ARCHS); do \
			echo "==> The wheels for Python $$python on $$arch"; \
			platforms="--platform linux_$$arch --platform manylinux2014_$$arch"; \
			for minor in $$(seq 17 36); do platforms="$$platforms --platform manylinux_2_$${minor}_$$arch"; done; \
			$(PY) -m pip download --quiet --dest $(PI_WHEELS) --find-links $(PI_WHEELS) --only-binary=:all: \
				--python-version $$python $$platforms '.[pi,telemetry]' $$builds \
				|| { echo "pi-offline: a wheel for Python $$python on $$arch is missing (above): README, Without internet"; exit 1; }; \
		done; done
	git rev-parse --short=7 HEAD > build/commit.txt
	git archive --format=tar.gz --output=$(PI_OFFLINE) --prefix=drnim-controller/wheels/ \
		$$(for wheel in $(PI_WHEELS)/*.whl; do printf ' --add-file=%s' "$$wheel"; done) \
		--prefix=drnim-controller/controller/ --add-file=build/commit.txt --prefix=drnim-controller/ HEAD
	@echo "==> $(PI_OFFLINE): copy it to the Pi, then there: tar -xzf drnim-controller-pi.tar.gz &&" \
		"cd drnim-controller && sudo systemd/install.sh --wheels wheels"

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
