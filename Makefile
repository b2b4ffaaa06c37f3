# One-line entry points (see README.md). `make test` is what CI runs (.ci/run).
PYTHON ?= python3
VENV ?= .venv
TORCH ?= torch==2.13.0
PROFILE ?= cpu
BIN = $(VENV)/bin

.PHONY: setup test test-fast reproduce report labs lab

setup: $(VENV)/.installed

# torch first, pinned. On Linux without an NVIDIA GPU (no nvidia-smi) from PyTorch's CPU-only index as well: the
# default index's Linux wheels are CUDA builds with gigabytes of nvidia-* packages, and pip takes the index's
# `+cpu` build of the pinned version over them. Where that index cannot be reached, pip goes on with the default
# index (and any local wheels it is configured with). `make setup TORCH_INDEX=` for the default index alone.
TORCH_INDEX ?= $(if $(filter Linux,$(shell uname -s)),$(if $(shell command -v nvidia-smi 2>/dev/null),,https://download.pytorch.org/whl/cpu))

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)" $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))
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
	@if [ "$$(id -u)" = 0 ]; then echo "make lab: running as root (a container?): JupyterLab is started with --allow-root"; fi
	THP_MEM_ALLOC_ENABLE=$${THP_MEM_ALLOC_ENABLE:-1} $(BIN)/jupyter lab notebooks/ $$( [ "$$(id -u)" = 0 ] && echo --allow-root)  # huge pages, as reproq run
