# Tavla: `make run` starts the whole club server, `make test` checks everything.
# Needs only Python 3.11+ and make; everything else goes into .venv (and, for the tests,
# node_modules/: npm ci installs axe-core for the accessibility audit).

# Tavla is safe by default (DEBUG off, a real SECRET_KEY required); these targets are the
# developer's tools, so they run in development mode unless the environment says otherwise.
export DEBUG ?= 1

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Stamps record that .venv holds what pyproject.toml asks for; editing it reinstalls.
STAMP := $(VENV)/.tavla-installed
TEST_STAMP := $(VENV)/.tavla-test-installed

.PHONY: run test soak lint typecheck pytest jstest bench stop install install-test messages multihost

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	$(PY) manage.py runall

test: $(TEST_STAMP)
	$(MAKE) lint typecheck jstest pytest

lint: $(TEST_STAMP)
	$(PY) -m ruff check .

typecheck: $(TEST_STAMP)
	$(PY) -m mypy --strict tavla/engine tournaments/formats tournaments/money.py tavla/analysis seasons/formats
	$(PY) -m mypy tavla matches tournaments seasons benchmarks deploy

# pytest-xdist: one worker per CPU, each with its own test database (SQLite file or
# PostgreSQL database) and Redis (the embedded one, or its own database of REDIS_URL's
# server: see tavla/settings.py); tests sharing a server, browser or Celery worker stay
# together. PYTEST_WORKERS=0 runs serially. PYTEST_ARGS go to pytest's command line (CI's
# second pass: -m "not stores_independent and not long_acceptance", see .ci/run).
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=

pytest: $(TEST_STAMP)
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# The long run: 10,000 random self-play games (make test plays 1,000).
soak: $(TEST_STAMP)
	TAVLA_SELFPLAY_GAMES=10000 $(PY) -m pytest -q tests/engine/test_selfplay.py

# The board's pure modules (geometry, move logic, words) under Node's own test runner.
jstest:
	node --test tests/js/

# After changing UI strings: refresh the Persian and Turkish catalogues in their one-line
# format, translate what is new or fuzzy, run it again to compile (tests/test_translations.py).
messages: $(STAMP)
	DEBUG=1 $(PY) manage.py makemessages -l fa -l tr --no-wrap --no-obsolete
	DEBUG=1 $(PY) manage.py compilemessages -l fa -l tr --ignore=.venv

bench: $(STAMP)
	@set -e; for f in benchmarks/[!_]*.py; do \
		[ -e "$$f" ] || continue; \
		echo "== $$f"; $(PY) "$$f"; \
	done

# Tavla on several hosts (Linux network namespaces, as root): a proxy, two web hosts, a worker
# host and a data host; 100 tables of bots through the proxy, then a web host killed, the
# worker host stopped for 30 s and the data host cut off for 10 s (docs/scaling.md). The
# bots use the test extras' websockets client.
multihost: $(TEST_STAMP)
	$(PY) -m deploy.multihost

# Stop the embedded Redis that `make run` leaves running between runs.
stop: $(STAMP)
	$(PY) manage.py embedded_redis stop

install: $(STAMP)
install-test: $(TEST_STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e .
	touch $@

# The browser tests also inject axe-core (package.json's devDependency, locked in
# package-lock.json) into the pages they audit: npm ci installs exactly that into node_modules/.
$(TEST_STAMP): pyproject.toml package.json package-lock.json $(STAMP)
	$(PY) -m pip install -e '.[test]'
	npm ci --no-audit --no-fund
	touch $@
