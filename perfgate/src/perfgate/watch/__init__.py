"""Watching main: change points in the stored per-commit history of each case and machine.

Pure modules (plain data in, plain data out): the series model (`series`), the candidate
segmentation by ruptures (`segment`), the split test both kinds of evidence share (`splits`),
the direction-aware detector (`detect`) with its short-history analysis on samples (`samples`),
its machine-readable record (`record`), the state of each change and its status lifecycle
(`state`), one run's detection and reconciliation (`run`), the SVG history plot (`plot`) and
the text of an alert (`alerts`). Confirmation by measurement: the prober interface and its
answer (`prober`), the bisection of a range (`bisect`), confirming and bisecting one change
(`confirm`) and its culprit's pull request (`pulls`).

At the edges: the series of an asv results directory (`load`), the state on the
``perf-results`` branch (`store`), the GitHub issues (`issues`), the real prober over the
gate's pipeline (`gate_prober`), and `service`, which runs ``perfgate watch`` from them.
"""
