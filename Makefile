# One-line entry points (see README.md). `make test` is what CI runs (.ci/run).
PYTHON ?= python3
VENV ?= .venv
TORCH ?= torch==2.13.0
PROFILE ?= cpu
BIN = $(VENV)/bin

.PHONY: setup test test-fast reproduce report labs lab lock

setup: $(VENV)/.installed

# torch first, pinned. On Linux without an NVIDIA GPU (no nvidia-smi) from PyTorch's CPU-only index as well: the
# default index's Linux wheels are CUDA builds with gigabytes of nvidia-* packages, and pip takes the index's
# `+cpu` build of the pinned version over them. Where that index cannot be reached, pip goes on with the default
# index (and any local wheels it is configured with): one retry, not pip's five with their back-off, which spent two
# minutes of every CI setup on an index it cannot resolve. `make setup TORCH_INDEX=` for the default index alone.
TORCH_INDEX ?= $(if $(filter Linux,$(shell uname -s)),$(if $(shell command -v nvidia-smi 2>/dev/null),,https://download.pytorch.org/whl/cpu))

# then every other package at the version and hashes of requirements.lock (Linux x86_64, CPython 3.11: what the
# committed records ran on), and reproq itself; elsewhere, or `make setup LOCK=`, within pyproject.toml's bounds
LOCKED_PLATFORM := $(and $(filter Linux,$(shell uname -s)),$(filter x86_64,$(shell uname -m)),$(filter 3.11,$(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)))
LOCK ?= $(if $(LOCKED_PLATFORM),requirements.lock)

$(VENV)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --retries 1 "$(TORCH)" $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))
	$(if $(LOCK),$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK),@echo "make setup: no lock for this platform (requirements.lock is for Linux x86_64, CPython 3.11): installing within pyproject.toml's bounds")
	$(BIN)/python -m pip install --quiet $(if $(LOCK),--no-deps) -e ".[dev]"
	touch $@

# refresh requirements.lock: the newest versions within pyproject.toml's bounds, for Linux x86_64 and CPython 3.11,
# torch left out (the override drops it and what only it needs: the TORCH pin installs them); then `make setup` and
# the tests, and say in the commit what moved
lock: setup
	$(BIN)/python -m pip install --quiet uv
	printf "torch; sys_platform == 'never'\n" > $(VENV)/lock-overrides.txt
	$(BIN)/uv pip compile --quiet pyproject.toml --extra dev --generate-hashes --python-version 3.11.7 \
		--python-platform x86_64-manylinux_2_28 --override $(VENV)/lock-overrides.txt --no-header -o requirements.lock.new
	{ sed -n '1,4p' requirements.lock; cat requirements.lock.new; } > requirements.lock.tmp
	rm requirements.lock.new && mv requirements.lock.tmp requirements.lock

# the suite on WORKERS processes (pytest-xdist), a test file whole on one of them, in its order: the notebooks' smoke
# runs and the site test that reads what they wrote (tests/test_notebooks.py); `make test WORKERS=0` for one process
WORKERS ?= 2
XDIST = $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile)

test: setup
	$(BIN)/python -m pytest -q $(XDIST)

test-fast: setup
	$(BIN)/python -m pytest -q $(XDIST) -m "not notebook"

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
