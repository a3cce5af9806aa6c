"""Watching main: change points in the stored per-commit history of each case and machine.

So far only the pure first step: the series model (`series`), the candidate segmentation by
ruptures (`segment`), the split test both kinds of evidence share (`splits`), the direction-aware
detector (`detect`) with its short-history analysis on samples (`samples`), and its
machine-readable record (`record`). Plain data in, plain data out; nothing here reads files or
talks to GitHub.
"""
