# The two commands of the README: `make run` serves firefight, `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean docs-images

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m service $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: $(STAMP)
	bash scripts/ensure-redis $(BIN)/python
	bash scripts/ensure-chromium
	bash scripts/ensure-haproxy
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)
	$(MAKE) --no-print-directory foundry-test

# The Foundry module's own tests (Node's test runner), one of them against the real service.
.PHONY: foundry-test
foundry-test: $(STAMP)
	cd foundry-module && npm ci --no-audit --no-fund && FIREFIGHT_PYTHON=$(abspath $(BIN)/python) node --test --test-reporter=spec --experimental-websocket tests/

bench: $(STAMP)
	bash scripts/ensure-redis $(BIN)/python
	$(BIN)/python -m bench

# A minute at a fixed rate with WebSocket watchers (docs/performance.md, "Sustained load");
# flags through ARGS, e.g. make bench-sustained ARGS="--store both --rate 300".
.PHONY: bench-sustained
bench-sustained: $(STAMP)
	bash scripts/ensure-redis $(BIN)/python
	$(BIN)/python -m bench.sustained $(ARGS)

# The screenshots in docs/: the console (a real browser on the real service) and the Foundry
# module's chat card rendered from its template.
docs-images: $(STAMP)
	bash scripts/ensure-chromium
	$(BIN)/python -m tests.console_screenshot
	cd foundry-module && npm ci --no-audit --no-fund && node scripts/render-card-preview.mjs ../.card-preview.html
	$${FIREFIGHT_CHROMIUM:-/usr/bin/chromium} --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=360,500 --screenshot=docs/img/chat-card.png file://$(abspath .card-preview.html) 2>/dev/null
	rm -f .card-preview.html

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
