# Two entry points, both self-contained on a fresh machine:
#   make example   set up .venv with what running needs and run the interpreter on the bundled example
#   make test      add the test tools to .venv and run the whole test suite
# The interpreter needs CPython 3.13; the lens also drives 3.11 and 3.12 when present.

PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $(HOME)/.pyenv)
HOST_PYTHON ?= $(firstword $(wildcard $(PYENV_ROOT)/versions/3.13*/bin/python3.13) $(shell command -v python3.13))
VENV := .venv
RUNTIME_STAMP := $(VENV)/.installed-runtime
TEST_STAMP := $(VENV)/.installed-test

.PHONY: example test setup clean

# what running needs: quickening itself (editable) and its runtime dependencies
$(RUNTIME_STAMP): pyproject.toml
	@test -n "$(HOST_PYTHON)" || { echo "error: CPython 3.13 not found (install it with pyenv)"; exit 1; }
	$(HOST_PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e .
	@touch $(RUNTIME_STAMP)

# what testing adds: the test extras (pytest, xdist, hypothesis, the fuzzers' generators, playwright, the build backend)
$(TEST_STAMP): $(RUNTIME_STAMP)
	@echo "make test: installing the test extras into $(VENV) (pytest, pytest-xdist, hypothesis, hypothesmith, pysource-codegen, playwright, setuptools)"
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	@touch $(TEST_STAMP)

setup: $(TEST_STAMP)

example: $(RUNTIME_STAMP)
	$(VENV)/bin/quickening run --stats examples/shapes.py

test: $(TEST_STAMP)
	@echo "make test: making sure Debian's chromium is installed (scripts/ensure-chromium.sh, apt-get as root) for the HTML report's browser test"
	bash scripts/ensure-chromium.sh
	@echo "make test: the lens tests also run on Debian's CPython 3.13/3.14/3.15 (JIT builds): scripts/install-cpython-builds.sh installs them once into ~/.cache/quickening/cpython-builds"
	-bash scripts/install-cpython-builds.sh
	$(VENV)/bin/python -m pytest -n 2 --dist loadgroup -q tests

clean:
	rm -rf $(VENV)
