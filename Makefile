# Two commands on a fresh machine: `make demo` and `make test`. Both set themselves up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup bytecode postgresql demo test lint bench serve clean

setup: $(STAMP) bytecode postgresql /usr/bin/chromium

# pip compiles what it installs, but not an editable project: compile ours, as an install would, so that no
# process (every `stepeval` command, every worker template) compiles it again where PYTHONDONTWRITEBYTECODE is set.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q harness bench >/dev/null

# The record store's tests start a real PostgreSQL server (tests/fixtures/store.py): install it when missing.
postgresql:
	@ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } || \
	  { echo "make setup: PostgreSQL is missing; install it (apt-get install postgresql): the store's tests need it" >&2; exit 1; }

# The HTML report's browser test drives Debian's chromium (Playwright's own browser download is not reachable).
/usr/bin/chromium:
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("stepeval needs Python >= 3.11" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: setup
	$(BIN)/stepeval demo

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

bench: setup
	$(BIN)/python -m bench
	$(BIN)/python -m bench.latency
	$(BIN)/python -m bench.service
	$(BIN)/python -m bench.mutate
	$(BIN)/python -m bench.store
	$(BIN)/python -m bench.playthrough
	$(BIN)/python -m bench.confinement

# The evaluator service (docs/service.md): make serve LAB=path/to/lab [ENDPOINT_URL=http://127.0.0.1:5000]
# STEPEVAL_WEBHOOK_SECRET must be set (whsec_...); the other STEPEVAL_* variables apply too.
LAB ?= .
serve: setup
	$(BIN)/stepeval serve --lab $(LAB) $(if $(ENDPOINT_URL),--endpoint-url $(ENDPOINT_URL))

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
