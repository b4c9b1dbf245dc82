# Neuron Field Guide — set-up, serve, build, test. `make serve` and `make test` do ALL set-up on a
# fresh Debian machine (run as root): Python 3.13 venv, pip install, npm ci, and Chromium for tests.
# Stamp files under .venv/ keep repeated runs fast. Python tools come from requirements/lock.txt
# (exact versions of the whole tree); `make lock` regenerates it from pyproject.toml's ranges.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV    := .venv
PY      := $(VENV)/bin/python
MKDOCS  := NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs
PYTEST  := NO_MKDOCS_2_WARNING=1 $(VENV)/bin/pytest
LOCK    := requirements/lock.txt
PIP_VERSION := 26.3
HOST    ?= 127.0.0.1:8000
SITE_URL ?= http://$(HOST)/
export SITE_URL

# A working Python 3.13: `python3.13` may be a pyenv shim that fails, so each candidate is run
PYTHON313 = $(shell for c in python3.13 /root/.pyenv/versions/3.13*/bin/python3.13 \
    /usr/local/bin/python3.13 /usr/bin/python3.13; do \
    "$$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null \
    && { echo "$$c"; break; }; done)

.PHONY: help setup serve build test test-nobrowser check-data lint lock clean

help:
	@echo "make serve   set up everything, then serve the site on http://$(HOST)/"
	@echo "make test    set up everything (incl. Chromium), then run all tests"
	@echo "make build   data check, then strict build of the site into site/"
	@echo "make check-data   check data/ (file, record and field for every fault)"
	@echo "make test-nobrowser   every test that needs no browser (unit, data, site build)"
	@echo "make lock    regenerate requirements/lock.txt in a fresh venv"
	@echo "make lint    ruff + mypy"

$(VENV)/.stamp-python:
	@test -n "$(PYTHON313)" || { echo "No working Python 3.13 found (tried python3.13, pyenv, /usr/bin)"; exit 1; }
	"$(PYTHON313)" -m venv $(VENV)
	touch $@

$(VENV)/.stamp-pip: $(VENV)/.stamp-python pyproject.toml $(LOCK)
	$(PY) -m pip install --quiet pip==$(PIP_VERSION)
	$(PY) -m pip install --quiet -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

node_modules/.stamp-npm: package.json package-lock.json
	command -v npm >/dev/null || { apt-get update && apt-get install -y nodejs npm; }
	npm ci --no-audit --no-fund
	touch $@

/usr/bin/chromium:
	apt-get update && apt-get install -y chromium

setup: $(VENV)/.stamp-pip node_modules/.stamp-npm

serve: setup
	$(MKDOCS) serve -a $(HOST)

check-data: setup
	$(PY) -m calc.data_check

build: setup check-data
	$(MKDOCS) build --strict

test: setup /usr/bin/chromium
	$(PYTEST)

test-nobrowser: setup
	$(PYTEST) -m "not browser"

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

lock:
	@test -n "$(PYTHON313)" || { echo "No working Python 3.13 found"; exit 1; }
	rm -rf build/lock-venv
	"$(PYTHON313)" -m venv build/lock-venv
	build/lock-venv/bin/python -m pip install --quiet pip==$(PIP_VERSION)
	build/lock-venv/bin/python -m pip install --quiet -e '.[dev]'
	{ sed -n '/^#/p' $(LOCK); build/lock-venv/bin/python -m pip freeze --exclude-editable \
	    | grep -v '^pip=='; } > $(LOCK).new
	mv $(LOCK).new $(LOCK)
	rm -rf build/lock-venv

clean:
	rm -rf site build dist .pytest_cache
