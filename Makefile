# perfgate / termplan developer entry points. Every target bootstraps its own virtualenv.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Numba's on-disk cache: compiled kernels survive between test runs and processes.
export NUMBA_CACHE_DIR ?= $(CURDIR)/.cache/numba
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: help venv valgrind test-all lint format type test test-fast test-slow bench bench-collector gate dashboard asv-smoke history-smoke test-asv-range clean

help:  ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

# the two distributions (editable) and the workspace's dev tools (pyproject.toml, group dev)
# (ci/heartbeat.sh: a line at least every 10 s while pip is quiet)
$(STAMP): pyproject.toml perfgate/pyproject.toml termplan/pyproject.toml
	@echo "venv: creating $(VENV) and installing perfgate, termplan[sim] and the dev tools"
	$(PYTHON) -m venv $(VENV)
	ci/heartbeat.sh venv $(PY) -m pip install --quiet --upgrade pip
	ci/heartbeat.sh venv $(PY) -m pip install --quiet -e ./perfgate -e './termplan[sim]' --group dev
	touch $@

venv: $(STAMP)  ## create .venv with every extra installed

# The sim instrument (perfgate.sim) runs the benchmarks under valgrind's callgrind; installed
# with apt where missing (as root, or with sudo), else a clear error with the command.
valgrind:  ## make sure valgrind (and setarch) are installed
	@command -v valgrind >/dev/null && command -v setarch >/dev/null || { \
		echo "valgrind not found: installing it with apt-get (the sim instrument needs it)"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q valgrind util-linux; \
		elif command -v sudo >/dev/null; then sudo apt-get update -q && sudo apt-get install -y -q valgrind util-linux; \
		else echo "cannot install valgrind: run 'sudo apt-get install -y valgrind'" >&2; exit 1; fi; }

lint: $(STAMP)  ## ruff format check + ruff lint
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

format: $(STAMP)  ## apply ruff formatting and safe fixes
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

type: $(STAMP)  ## mypy over perfgate/src and termplan/src
	$(VENV)/bin/mypy

# pytest-xdist workers (one per CPU); a numba kernel family stays on one worker (conftest.py).
TEST_WORKERS ?= auto
FAST_TIER := not slow and not numba and not mujoco and not subprocess and not network

test: $(STAMP)  ## pytest, every test but the slow ones, on xdist workers (TEST_WORKERS=auto)
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

test-fast: $(STAMP)  ## pytest, the fast tier: no numba compile, MuJoCo, subprocess or network
	$(PY) -m pytest -q -m '$(FAST_TIER)'

# The browser tests take screenshots with Debian's chromium and chromedriver (installed here
# with apt-get when missing and this user may; otherwise the tests fail naming the command).
test-slow: $(STAMP)  ## pytest, slow suite only (installs chromium + chromedriver where missing)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null \
		|| ci/install-chromium.sh
	$(PY) -m pytest -q -m slow

test-all: lint type test  ## everything CI runs

BASE ?= HEAD
GATE_HEAD ?= HEAD
gate: $(STAMP) valgrind  ## perf gate locally: BASE (default HEAD) vs GATE_HEAD (default HEAD), quick, no GitHub
	$(PY) -m perfgate.cli gate --base $(BASE) --head $(GATE_HEAD) --quick --report-dir reports/gate

bench: $(STAMP)  ## hot-slice benchmark figures (JSON)
	$(PY) -m termplan.bench hot --task g1_walk --profile sac_default --num-envs 2048,65536 \
		--threads 1,2 --paths numpy,handwritten,assembled --json

# asv.conf.json with the commit links set to this repository (ci/dashboard_conf.py; git-ignored)
DASHBOARD_CONF := .asv.conf.dashboard.json
dashboard: $(STAMP)  ## static asv dashboard in .asv/html: what this checkout measured (gate runs, local results) + the perf-results branch; throughput as 1/value
	@status=0; git remote get-url origin >/dev/null 2>&1 || status=2; \
	if [ $$status -eq 0 ]; then \
		git ls-remote --exit-code --heads origin perf-results >/dev/null || status=$$?; \
	fi; \
	case $$status in \
	0) $(PY) -m perfgate.cli history export --remote origin --branch perf-results --dest .asv/results ;; \
	2) echo "dashboard: no perf-results branch on origin; this checkout's results only" ;; \
	*) echo "dashboard: cannot read origin (git ls-remote exit $$status)" >&2; exit 1 ;; \
	esac
	$(PY) ci/dashboard_conf.py $(DASHBOARD_CONF)
	rm -rf .asv/html
	$(PY) -m perfgate.cli publish --config $(DASHBOARD_CONF) --results-dir .asv/results \
		--html-dir .asv/html --gate-runs .perfgate/runs
	$(PY) ci/dashboard_assets.py .asv/html
	test -s .asv/html/index.html && test -s .asv/html/regressions.json && test -s .asv/html/vendor/jquery.min.js
	@echo "dashboard: .asv/html (serve: $(PY) -m http.server -d .asv/html)"

ASV_BENCH ?= .
# The tests that run asv itself, for the asv-range CI job (the lowest and the highest asv
# perfgate allows): run in whatever .venv holds them, no `make venv` first.
ASV_RANGE_TESTS = tests/perfgate/asv/test_pg_asv_runner.py tests/perfgate/formats/test_fmt_asv066_fixture.py \
	tests/perfgate/formats/test_fmt_asv_output.py tests/perfgate/asv/test_pl_side_run.py \
	tests/perfgate/adopt/test_adopt_probe.py tests/perfgate/gate/test_pl_gate_asv_e2e.py
test-asv-range:  ## the tests that run asv (CI runs them under asv 0.6.1 and 0.6.6)
	$(VENV)/bin/python -m pytest -q -n 0 -p no:cacheprovider $(ASV_RANGE_TESTS)

# the sim suite counts only its N=2048 cases here (PERFGATE_BENCH: the harness's selection)
asv-smoke: $(STAMP) valgrind  ## asv check + one quick pass of every suite in this venv (missing features skip)
	$(VENV)/bin/asv check --python=same
	$(VENV)/bin/asv machine --yes
	PERFGATE_BENCH='["2048\\)$$"]' $(VENV)/bin/asv run --quick --python=same --show-stderr --bench '$(ASV_BENCH)'

# perf-history.yml's own asv run (ci/history-run.sh) in the environment asv builds from
# asv.conf.json (not --python=same), over two commits of a throwaway copy of this checkout,
# then its append and export: one hot-slice and one sim case (tests/perfgate/history)
history-smoke: $(STAMP) valgrind  ## the history job's asv run in an asv-built env, appended and exported (slow test)
	$(PY) -m pytest -q -n 0 -m slow tests/perfgate/history/test_history_asv_env.py

bench-collector: $(STAMP)  ## collector active window, all paths, N=512, both tasks (JSON)
	$(PY) -m termplan.bench collector --task g1_walk --num-envs 512 --steps 100 --warmup 10 --json
	$(PY) -m termplan.bench collector --task motion_tracking --num-envs 512 --steps 100 --warmup 10 --json

clean:  ## remove caches and the virtualenv
	rm -rf $(VENV) .cache .asv/html $(DASHBOARD_CONF) .mypy_cache .pytest_cache .ruff_cache
