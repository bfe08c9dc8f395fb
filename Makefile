# Two commands do everything on a fresh machine: `make build` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: build test bench clean setup

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,posts]'
	touch $(STAMP)

setup: $(STAMP)

build: $(STAMP)
	$(VENV)/bin/site-builder build --source . --output output

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/build.py

clean:
	rm -rf output .cache
