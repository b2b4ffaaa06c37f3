# One-line entry points (see README.md). `make test` is what CI runs (.ci/run).
PYTHON ?= python3
VENV ?= .venv
TORCH ?= torch==2.13.0
PROFILE ?= cpu
BIN = $(VENV)/bin

.PHONY: setup test test-fast reproduce report labs lab

setup: $(VENV)/.installed

# torch first, pinned: a bare `torch` requirement would pull a multi-GB CUDA build on machines without one.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

test: setup
	$(BIN)/python -m pytest -q

test-fast: setup
	$(BIN)/python -m pytest -q -m "not notebook"

# `-`: what cannot be fetched is listed; the notebooks use the synthetic stand-in for the AskUbuntu and Android
# corpora, and a notebook that needs another missing file stops and names it.
reproduce: setup
	-$(BIN)/reproq data fetch
	$(BIN)/reproq run --profile $(PROFILE)

# the reproduction report from the committed results: build/report/cpu/index.html
report: setup
	$(BIN)/reproq report

# the course labs (nbgrader): student release and instructor's source in build/labs/
labs: setup
	$(BIN)/reproq labs

lab: setup
	$(BIN)/jupyter lab notebooks/
