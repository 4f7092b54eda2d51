# The two commands of the README: `make run` serves firefight, `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# One virtualenv, two stamps. `make run` installs only what the service needs, at the exact
# versions of requirements.lock (what the image installs); test, lint, bench and docs-images add
# the tools of pyproject's `test` extra on top of that.
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
# pytest on every core (pytest-xdist), a test file to a worker: module-scoped services start once,
# and the suite takes half the time on the two cores of the project's machines. PYTEST_ARGS=-n0
# runs it in one process.
PYTEST_ARGS ?= -n auto --dist loadfile

.PHONY: run test lint bench clean docs-images lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(TEST_STAMP): $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(RUN_STAMP)
	$(BIN)/python -m service $(ARGS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The TypeScript generators of tests/test_openapi_clients.py (openapi-typescript, openapi-fetch,
# tsc), at the versions of clients/package-lock.json; npm ci again when the lock changes.
CLIENTS_STAMP := clients/node_modules/.package-lock.json
$(CLIENTS_STAMP): clients/package-lock.json
	cd clients && npm ci --no-audit --no-fund

test: $(TEST_STAMP) $(CLIENTS_STAMP)
	bash scripts/ensure-redis $(BIN)/python
	bash scripts/ensure-chromium
	bash scripts/ensure-haproxy
	bash scripts/ensure-caddy
	$(MAKE) --no-print-directory --jobs=3 --output-sync=target lint pytest foundry-test

# The Python tests: `make test` runs them beside the lint and the Foundry module's tests, each
# part's output shown whole once it ends (--output-sync), and any part that fails fails `make test`.
.PHONY: pytest
pytest: $(TEST_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The Foundry module's own tests (Node's test runner), one of them against the real service,
# once against each Foundry the module supports (FOUNDRY_VERSION: the stubs of v13, then v14).
# FIREFIGHT_CONSTANT_DICE=0.5 (or 0.17, 0.8) starts that service with one face on every die it
# picks (tests/constant_dice_service.py), so a test that counts on luck fails every time.
FOUNDRY_VERSIONS := 13 14
.PHONY: foundry-test
foundry-test: $(TEST_STAMP)
	cd foundry-module && npm ci --no-audit --no-fund && for version in $(FOUNDRY_VERSIONS); do \
		FOUNDRY_VERSION=$$version FIREFIGHT_PYTHON=$(abspath $(BIN)/python) node --test --test-reporter=spec --experimental-websocket tests/ || exit 1; \
	done

# Every benchmark that prints targets, one after the other, then all the targets together
# (bench/suite.py lists them; a new one is one line there). A few minutes; ARGS=--long for the
# longer runs of docs/performance.md, ARGS="--only bench" for one of them.
bench: $(TEST_STAMP)
	bash scripts/ensure-redis $(BIN)/python
	$(BIN)/python -m bench.suite $(ARGS)

# A minute at a fixed rate with WebSocket watchers (docs/performance.md, "Sustained load");
# flags through ARGS, e.g. make bench-sustained ARGS="--store both --rate 300".
.PHONY: bench-sustained
bench-sustained: $(TEST_STAMP)
	bash scripts/ensure-redis $(BIN)/python
	$(BIN)/python -m bench.sustained $(ARGS)

# The screenshots in docs/: the console (a real browser on the real service) and the Foundry
# module's chat card rendered from its template.
docs-images: $(TEST_STAMP)
	bash scripts/ensure-chromium
	$(BIN)/python -m scripts.body_map_svg
	$(BIN)/python -m tests.console_screenshot
	$(BIN)/python -m tests.console_screenshot_sr3hl
	$(BIN)/python -m tests.console_screenshot_phone
	$(BIN)/python -m tests.console_screenshot_dice
	cd foundry-module && npm ci --no-audit --no-fund && node scripts/render-card-preview.mjs ../.card-preview.html
	$${FIREFIGHT_CHROMIUM:-/usr/bin/chromium} --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=360,500 --screenshot=docs/img/chat-card.png file://$(abspath .card-preview.html) 2>/dev/null
	rm -f .card-preview.html

# Refreshes requirements.lock: the newest versions pyproject's ranges allow, with the hashes of
# every file PyPI has for them, for Python 3.11 and later (markers where it matters). uv runs
# from a throwaway virtualenv: it is needed to lock, never to run or to test.
lock:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT \
		&& $(PYTHON) -m venv "$$tmp" \
		&& "$$tmp/bin/python" -m pip install --quiet 'uv>=0.5,<1' \
		&& "$$tmp/bin/uv" pip compile pyproject.toml --quiet --upgrade --universal \
			--python-version 3.11 --generate-hashes --custom-compile-command "make lock" \
			--output-file requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
