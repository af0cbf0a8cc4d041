# Two commands on a fresh machine: `make demo` and `make test`. Both set themselves up.
# `make demo` needs only Python >= 3.11 and the package registry (no root); `make test` also wants chromium and
# PostgreSQL (test-tools below): installed when root on Debian, named in one line otherwise.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ORACLE := tests/kit/policy_oracle

.PHONY: setup bytecode test-tools demo test test-fast test-deps wheel-demo lint bench serve clean

setup: $(STAMP) bytecode

# pip compiles what it installs, but not an editable project: compile ours, as an install would, so that no
# process (every `stepeval` command, every worker template) compiles it again where PYTHONDONTWRITEBYTECODE is set.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q harness bench >/dev/null

# What only the tests need (the demo needs neither): chromium drives the HTML report's browser test, PostgreSQL
# serves the record store's tests. Each is found, or installed with apt-get when root on Debian (saying so), or
# named in one line; its tests then skip (outside CI; under CI they fail: tests/fixtures/needs.py).
test-tools: $(ORACLE)/node_modules/.package-lock.json
	@$(call need,chromium,command -v chromium || test -x /usr/bin/chromium,chromium,the HTML report's browser test)
	@$(call need,PostgreSQL,ls /usr/lib/postgresql/*/bin/pg_ctl || command -v pg_ctl,postgresql,the record store's tests)

# The independent IAM evaluator the kit's policy engine is tested against (tests/kit/test_access_oracle.py): npm ci
# of the committed lock, its cache in build/ so that any user who can write the checkout can install it. Without
# npm, one line says so and the test skips (fails under CI).
$(ORACLE)/node_modules/.package-lock.json: $(ORACLE)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --prefix $(ORACLE) --no-audit --no-fund --no-update-notifier --loglevel=error --cache $(CURDIR)/build/npm-cache >/dev/null \
	  || echo "make test: npm ci in $(ORACLE) failed: the policy engine's differential test will skip (fail under CI)" >&2; \
	else \
	  echo "make test: node/npm is missing: the policy engine's differential test will skip (install Node.js >= 20)" >&2; \
	fi

# $(call need,WHAT,HOW TO FIND IT,DEBIAN PACKAGE,WHICH TESTS NEED IT)
define need
if { $(2); } >/dev/null 2>&1; then :; \
elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
  echo "make test: installing $(1) with apt-get install $(3) (for $(4))"; \
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(3) >/dev/null; } || \
  echo "make test: apt-get could not install $(3): $(4) will skip (fail under CI)" >&2; \
else \
  echo "make test: $(1) is missing: $(4) will skip (as root on Debian make test installs it: apt-get install $(3))" >&2; \
fi
endef

# The editable install's build says nothing but errors: setuptools' "Editable installation" banner (a warning that
# every editable install prints since pip 25, about folders named like the package) is filtered by its text alone.
$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("stepeval needs Python >= 3.11" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS='ignore:Editable installation' $(BIN)/python -m pip install --quiet -e '.[authoring,dev]'
	touch $(STAMP)

demo: setup
	$(BIN)/stepeval demo

# The tests run on every core (pytest-xdist; JOBS=1: in this process): one test file's tests on one worker (one
# sandbox mode's, where a file runs in several; a lab's scenarios, all its files': tests/conftest.py), so that a
# module's servers start once and a lab is played once; each worker has its own session's (a moto server, the worker
# pool, PostgreSQL). The costliest groups go first (tests/fixtures/schedule.py), not xdist's order by number of tests.
JOBS ?= logical
PARALLEL = $(if $(filter 1,$(JOBS)),,-n $(JOBS) --dist loadgroup --no-loadscope-reorder)

test: setup test-tools
	$(BIN)/python -m pytest $(PARALLEL)

# A wheel built from this checkout (not editable) in a fresh venv under build/, running `stepeval demo`: what a user
# of `pip install stepeval` gets (tests/commands/test_wheel.py runs the same as an unprivileged user).
wheel-demo:
	rm -rf build/wheel && $(PYTHON) -m venv build/wheel/venv
	build/wheel/venv/bin/python -m pip install --quiet --upgrade pip
	build/wheel/venv/bin/python -m pip wheel --quiet --no-deps -w build/wheel/dist .
	build/wheel/venv/bin/python -m pip install --quiet "$$(ls build/wheel/dist/stepeval-*.whl)[authoring]"
	cd build/wheel && venv/bin/stepeval demo

# The tests that start no process and use no moto, PostgreSQL or chromium (markers: tests/fixtures/markers.py).
FAST := not process and not moto and not postgres and not browser
test-fast: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PARALLEL) -m "$(FAST)" tests

# The tests at both ends of pyproject.toml's ranges, each end in a throw-away venv (build/deps/lowest, highest): uv
# resolves every direct dependency at the lowest version it allows (what they need, at the newest), then all at the
# newest allowed. Each end runs the fast subset (the guards of harness/_compat among it), then DEPS_TESTS: the tests
# that drive each door end to end, the store's on PostgreSQL and the service's HTTP. DEPS_TESTS=tests: everything.
DEPS := build/deps
DEPS_TESTS ?= tests/authoring/test_emulator.py tests/authoring/test_emulator_needs.py tests/authoring/test_moto_http.py \
	tests/inside/test_link.py tests/service/test_transport.py tests/service/test_http.py tests/store \
	tests/kit/test_identity_vs_moto.py
test-deps:
	rm -rf $(DEPS) && $(PYTHON) -m venv $(DEPS)/uv && $(DEPS)/uv/bin/python -m pip install --quiet uv
	@failed=""; for end in lowest highest; do \
	  resolution=$$([ $$end = lowest ] && echo lowest-direct || echo highest); \
	  echo "== $$end: uv pip compile --resolution $$resolution"; \
	  $(DEPS)/uv/bin/uv pip compile --quiet pyproject.toml --extra authoring --extra dev --resolution $$resolution -o $(DEPS)/$$end.txt \
	  && $(DEPS)/uv/bin/uv venv --quiet --python $(PYTHON) $(DEPS)/$$end \
	  && $(DEPS)/uv/bin/uv pip install --quiet --python $(DEPS)/$$end/bin/python -r $(DEPS)/$$end.txt -e . \
	  && grep -iE '^(boto3|botocore|moto|werkzeug|uvicorn|fastapi|pydantic|sqlalchemy|pytest)==' $(DEPS)/$$end.txt | tr '\n' ' ' && echo \
	  || { failed="$$failed $$end(install)"; continue; }; \
	  $(DEPS)/$$end/bin/python -m pytest -q -p no:cacheprovider -m "$(FAST)" tests || failed="$$failed $$end(fast)"; \
	  $(DEPS)/$$end/bin/python -m pytest -q -p no:cacheprovider $(DEPS_TESTS) || failed="$$failed $$end(DEPS_TESTS)"; \
	done; \
	if [ -n "$$failed" ]; then echo "make test-deps: failed at:$$failed (versions in $(DEPS)/*.txt)"; exit 1; fi

# What CI checks before the tests: ruff, its formatting, the import contracts ([tool.importlinter]) and mypy with
# pydantic's plugin ([tool.mypy]), each in pyproject.toml; then radon: no function or closure anywhere in the
# checkout graded E or F (cyclomatic complexity over 30): split it into named parts. A file radon cannot parse is
# shown, not failed (ruff fails real code that does not parse; tests/labs/misbehaving is not Python on purpose).
RADON := $(BIN)/radon cc --min E --show-complexity --show-closures --ignore '.*,build,node_modules' .
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	@graded="$$($(RADON))" || exit 1; \
	if printf '%s\n' "$$graded" | grep -qE ' - [EF] \([0-9]+\)$$'; then \
	  printf '%s\n' "make lint: radon grades these E or F (split each into named parts):" "$$graded" >&2; exit 1; \
	fi

# Each benchmark prints its figures and writes them to bench/results/<name>.txt (docs/dev.md, "Benchmarks").
bench: setup
	$(BIN)/python -m bench
	$(BIN)/python -m bench.latency
	$(BIN)/python -m bench.service
	$(BIN)/python -m bench.mutate
	$(BIN)/python -m bench.store
	$(BIN)/python -m bench.playthrough
	$(BIN)/python -m bench.confinement
	$(BIN)/python -m bench.namespaces
	$(BIN)/python -m bench.labs
	$(BIN)/python -m bench.many_labs
	$(BIN)/python -m bench.edge
	$(BIN)/python -m bench.boundary

# The evaluator service (docs/service.md): make serve LAB=path/to/lab [ENDPOINT_URL=http://127.0.0.1:5000]
# STEPEVAL_WEBHOOK_SECRET must be set (whsec_...); the other STEPEVAL_* variables apply too.
LAB ?= .
serve: setup
	$(BIN)/stepeval serve --lab $(LAB) $(if $(ENDPOINT_URL),--endpoint-url $(ENDPOINT_URL))

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build/deps build/wheel build/npm-cache $(ORACLE)/node_modules
