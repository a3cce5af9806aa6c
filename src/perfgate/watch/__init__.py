"""Watching main: change points in the stored per-commit history of each case and machine.

So far only the pure first step: the series model (`series`), the candidate segmentation by
ruptures (`segment`), the direction-aware detector (`detect`) and its machine-readable record
(`record`). Plain data in, plain data out; nothing here reads files or talks to GitHub.
"""
