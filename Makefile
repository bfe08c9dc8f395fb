# Two commands do everything on a fresh machine: `make build` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: build test lint docs bench import-check clean setup

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,posts,docs]'
	$(PY) -m compileall -q site_builder  # bytecode as a wheel install has it, even under PYTHONDONTWRITEBYTECODE
	touch $(STAMP)

# the browser tests drive Debian's Chromium through its chromedriver; install them when missing
BROWSER := $(VENV)/.browser
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
$(BROWSER): $(STAMP)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  ($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver fonts-noto-cjk >/dev/null)
	touch $(BROWSER)

# axe-core, for the accessibility test (tests/test_accessibility.py), from npm
AXE := $(VENV)/axe/node_modules/axe-core/axe.min.js
$(AXE): $(STAMP)
	mkdir -p $(VENV)/axe
	npm install --prefix $(VENV)/axe --silent --no-audit --no-fund axe-core@4
	test -f $(AXE)

setup: $(STAMP)

build: $(STAMP)
	$(VENV)/bin/site-builder build --source . --output output

lint: $(STAMP)
	$(VENV)/bin/ruff check site_builder tests bench
	$(VENV)/bin/ruff format --check site_builder tests bench
	$(VENV)/bin/mypy

# the documentation site, into .venv/docs-site: --strict fails on a broken link or a page missing from the nav
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

test: $(STAMP) $(BROWSER) $(AXE) lint docs
	# three at a time on two cores, a file to a worker, longest first (tests/conftest.py; no two Ray
	# clusters at once): many tests wait on Chromium or a subprocess (383-391 s against 460 s with two)
	$(PY) -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder -m 'not serial' --durations=15
	# the tests that time what they wait for, alone; only the files that hold one are collected (7 s fewer)
	$(PY) -m pytest -q -m serial --durations=5 $$(grep -l 'pytest.mark.serial' tests/test_*.py)

import-check: $(STAMP)  # import, build and check each real blog source of ../shared/corpus/sources
	$(PY) bench/import_sources.py

bench: $(STAMP)
	$(PY) bench/build.py

clean:
	rm -rf output .cache
