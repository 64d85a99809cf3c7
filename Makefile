# memscribe — the two commands a new user needs: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
export OMP_NUM_THREADS ?= 1
# LoCoMo's locomo10.json from github.com/snap-research/locomo (README, Benchmarks); not in the repository
LOCOMO ?= data/locomo/locomo10.json

.PHONY: demo test test-fast lint format bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/memscribe demo

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

format: $(VENV)/.installed-dev
	$(BIN)/ruff format src tests
	$(BIN)/ruff check --fix src tests

test: $(VENV)/.installed-dev lint
	$(BIN)/python -m pytest -q --durations=15

# the same without the slow tier (corpora of 1,000+ items, shipped-weight reproductions, reliability runs)
test-fast: $(VENV)/.installed-dev lint
	$(BIN)/python -m pytest -q -m "not slow"

bench: $(VENV)/.installed-dev
	@test -f $(LOCOMO) || { echo "no $(LOCOMO): download locomo10.json (README, Benchmarks) or set LOCOMO=PATH"; exit 2; }
	$(BIN)/memscribe bench locomo --data $(LOCOMO) --budget 300,1000 --out bench-out
	$(BIN)/memscribe bench scenarios --data tests/scenarios/scenarios.json --out bench-out
	$(BIN)/memscribe bench speed --n 10000,100000 --out bench-out

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info src/*.egg-info
