# Neuron Field Guide — set-up, serve, build, test. `make serve` and `make test` do ALL set-up on a
# fresh Debian machine (run as root): Python 3.13 venv, pip install, npm ci, and Chromium for tests.
# Stamp files under .venv/ keep repeated runs fast.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV    := .venv
PY      := $(VENV)/bin/python
MKDOCS  := NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs
PYTEST  := NO_MKDOCS_2_WARNING=1 $(VENV)/bin/pytest
HOST    ?= 127.0.0.1:8000
SITE_URL ?= http://$(HOST)/
export SITE_URL

# A working Python 3.13: `python3.13` may be a pyenv shim that fails, so each candidate is run
PYTHON313 = $(shell for c in python3.13 /root/.pyenv/versions/3.13*/bin/python3.13 \
    /usr/local/bin/python3.13 /usr/bin/python3.13; do \
    "$$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null \
    && { echo "$$c"; break; }; done)

.PHONY: help setup serve build test lint clean

help:
	@echo "make serve   set up everything, then serve the site on http://$(HOST)/"
	@echo "make test    set up everything (incl. Chromium), then run all tests"
	@echo "make build   strict build of the site into site/"
	@echo "make lint    ruff + mypy"

$(VENV)/.stamp-python:
	@test -n "$(PYTHON313)" || { echo "No working Python 3.13 found (tried python3.13, pyenv, /usr/bin)"; exit 1; }
	"$(PYTHON313)" -m venv $(VENV)
	touch $@

$(VENV)/.stamp-pip: $(VENV)/.stamp-python pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
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

build: setup
	$(MKDOCS) build --strict

test: setup /usr/bin/chromium
	$(PYTEST)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

clean:
	rm -rf site build dist .pytest_cache
