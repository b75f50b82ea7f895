# Two entry points, both self-contained on a fresh machine:
#   make example   set up .venv and run the interpreter on the bundled example
#   make test      set up .venv and run the whole test suite
# The interpreter needs CPython 3.13; the lens also drives 3.11 and 3.12 when present.

PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $(HOME)/.pyenv)
HOST_PYTHON ?= $(firstword $(wildcard $(PYENV_ROOT)/versions/3.13*/bin/python3.13) $(shell command -v python3.13))
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: example test setup clean

$(STAMP): pyproject.toml
	@test -n "$(HOST_PYTHON)" || { echo "error: CPython 3.13 not found (install it with pyenv)"; exit 1; }
	$(HOST_PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

setup: $(STAMP)

example: $(STAMP)
	$(VENV)/bin/quickening run --stats examples/shapes.py

test: $(STAMP)
	bash scripts/ensure-chromium.sh
	$(VENV)/bin/python -m pytest -n 2 --dist loadgroup -q tests

clean:
	rm -rf $(VENV)
