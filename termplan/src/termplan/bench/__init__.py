"""Command-line benchmarks: ``python -m termplan.bench <command> ...`` (JSON figures out).

These print figures; they are never unit tests (shared, noisy machines). Ratios between
paths are measured side by side in one process, call by call.
"""
