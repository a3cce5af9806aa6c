"""Per-commit asv results kept forever on an append-only git branch (``perf-results``).

``append`` adds a run's result files to the branch with git plumbing (a private index,
``commit-tree``, ``push``), never touching the main checkout; the branch mirrors asv's
``results_dir`` layout, so ``export`` then ``asv publish`` rebuilds the dashboard. Per file,
decided before anything is written: a new result file is added, an identical one is a
no-op, a different one (a re-run) is stored beside it under a name from its content, never
overwriting; ``benchmarks.json`` and ``machine.json`` are metadata (the newest replaces
them), and each commit's suite is kept as ``suites/<commit>.json`` so ``export`` shows the
suite of the newest exported commit whatever order machines appended in. An append names
the commits it measured and fails when it stored none of them; a damaged file is moved to
``quarantine/`` with a record of why. A push rejected because the tip moved is retried on a
fresh fetch with backoff and jitter; any other git failure is an error (docs/watch.md).

Modules: `order` (pure: suites and commits to measure), `branch` (reading the branch through
isolated git), `append` (the per-file policy and the racing push), `measured` and
`quarantine` (pure: what a run stored, what is damaged), `export` (``export``, ``pending``).
"""
