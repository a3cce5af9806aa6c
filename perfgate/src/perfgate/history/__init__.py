"""Per-commit asv results kept forever on an append-only git branch (``perf-results``).

After a benchmark run on main, ``append`` adds the run's result files to the branch with git
plumbing (a private index file, ``commit-tree``, ``push``), so the main checkout, its index
and HEAD are never touched. The branch mirrors asv's ``results_dir`` layout
(``benchmarks.json``, ``<machine>/machine.json``, ``<machine>/<hash>-<env>.json``), so
``export`` followed by ``asv publish`` rebuilds the dashboard from it.

Policy (decided per file, before anything is written):

* a *result* file (``<machine>/<hash>-<env>.json``) that is absent is added; one already
  present with identical content is a no-op; one present with *different* content (a re-run
  of the same commit) is never overwritten: it is stored next to it as
  ``<hash>-<env>.<sha256[:12] of the content>.json``. The name depends on the content only,
  so a retry after a lost race is again a no-op, and asv loads both files as two runs of the
  same commit (``asv publish`` plots their mean);
* the *metadata* files ``benchmarks.json`` (the suite description) and ``machine.json`` are
  not results: a differing one replaces the stored one (the newest run describes the
  machine). The suite is also kept per commit, as ``suites/<commit>.json`` (the commit the
  run's suites were discovered at, ``--suite-ref``, default HEAD), and ``export`` writes out
  the suite of the newest commit of the exported history (``--ref``), so the order in which
  machines or catch-up runs append never decides which benchmarks the dashboard shows
  (:mod:`perfgate.history.order`).

A benchmark run's append names the commits it measured (``--measured``, its asv HASHFILE):
a run that stored no result of them appends nothing and fails naming them
(`perfgate.history.measured`). Every append moves a damaged file of a machine folder (not a
JSON object: truncated, not UTF-8) to ``quarantine/`` with a record of why, never rewriting
it in place (`perfgate.history.quarantine`).

``pending`` prints the commits a run on one machine should measure: the tip and the older
first-parent commits that have no results of that machine yet (runs GitHub dropped, pushes of
several commits), newest first, for ``asv run HASHFILE:...``.

Concurrent writers race on the branch tip. A push rejected because the tip moved is retried
on a fresh fetch with exponential backoff and jitter, a bounded number of times; every other
git failure is an error (fail closed). (``perfgate history``: 0 success, 1 error, 2 usage.)

Modules: `order` (pure: suites and commits to measure), `branch` (reading the branch through
isolated git), `append` (the per-file policy and the racing push), `measured` and
`quarantine` (pure: what a run stored, what is damaged), `export` (``export`` and
``pending``).
"""
