# mtdiag — every step a fresh machine needs is scripted here.
#   make run    -> dashboard on sample_data (http://localhost:8501)
#   make test   -> venv + deps + Debian chromium, then the whole pytest suite
.DEFAULT_GOAL := help
SHELL := /bin/bash

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.mtdiag-installed
RUN_STAMP := $(VENV)/.mtdiag-run
# the set the dashboard opens on (the richest sample set: mtdiag/ui/offered_sets.py), scored before `make run` serves
FIRST_SET := wmt21.en-de
CHROMIUM ?= /usr/bin/chromium
# The dashboard listens on this machine only: uploaded data must not be reachable from the network unless asked
# (`make run ADDRESS=0.0.0.0`), as `mtdiag serve --address` does.
ADDRESS ?= 127.0.0.1
# `make run PORT=8633` serves there; unset, Streamlit's default (8501, or the next free port when 8501 is taken)
PORT   ?=
FONTS  := fonts-liberation fonts-noto-cjk

.PHONY: help install run browser test bench clean

help:
	@echo "make install  - create $(VENV) and install mtdiag + dev requirements"
	@echo "make run      - start the dashboard (opens on sample_data; PORT=8633 to choose the port)"
	@echo "make browser  - install Debian chromium (browser tests) and the CJK and Liberation fonts"
	@echo "make test     - install, browser, then run the test suite"
	@echo "make bench    - run every benchmarks/bench_*.py"

install: $(STAMP)

# Re-install only when the dependency files change (the editable install picks up code changes by itself).
# What `make run` needs: the runtime requirements (not the test tools), and the set the dashboard opens on scored.
# --no-compile: Python writes a module's bytecode the first time it imports it; pip compiling every file of every
# package (most never imported) was a fifth of the install (197 -> 161 s on the shared machine).
$(RUN_STAMP): requirements.txt pyproject.toml
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --no-compile -r requirements.txt -e .
	# compile the TER kernel once now (numba caches it on disk) and score the set the dashboard opens on (its
	# report is kept on disk, mtdiag/scoring/report_cache.py), so the first page neither compiles nor scores
	$(VPY) -m mtdiag.scoring.report_cache mtdiag/sample_data $(FIRST_SET)
	@touch $@

# Everything: the test tools too, and every sample set scored (the tests and `make bench` open them all).
$(STAMP): $(RUN_STAMP) requirements-dev.txt
	$(VPY) -m pip install -r requirements-dev.txt -e .
	$(VPY) -m mtdiag.scoring.report_cache mtdiag/sample_data
	@touch $@

# MALLOC_ARENA_MAX: as `mtdiag serve` sets it (docs/scaling.md, "Hostile uploads under load")
run: $(RUN_STAMP)
	MALLOC_ARENA_MAX=$${MALLOC_ARENA_MAX:-2} $(VENV)/bin/python -m mtdiag.ui.serve run app.py --server.headless true \
	  --server.address $(ADDRESS) $(if $(PORT),--server.port $(PORT)) --browser.gatherUsageStats false

# chromium for the browser tests; the fonts in any case: the dashboard's users read Chinese and Japanese text, which
# renders as empty boxes without a CJK font (issue 23) — also when chromium was already installed.
browser:
	@missing=""; \
	[ -x "$(CHROMIUM)" ] || missing="chromium"; \
	for package in $(FONTS); do dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; done; \
	if [ -z "$$missing" ]; then \
	  echo "chromium and fonts present: $$($(CHROMIUM) --version 2>/dev/null || echo $(CHROMIUM)), $(FONTS)"; \
	else \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  echo "installing:$$missing"; \
	  $$SUDO apt-get update && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

test: install browser
	$(VPY) -m pytest -q

bench: install
	@shopt -s nullglob; files=(benchmarks/bench_*.py); \
	if [ $${#files[@]} -eq 0 ]; then echo "no benchmarks/bench_*.py yet"; exit 0; fi; \
	for f in "$${files[@]}"; do echo "== $$f"; $(VPY) "$$f" || exit $$?; done

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache artifacts
