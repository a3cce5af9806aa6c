"""Change points in one case's stored history: the series (`series`, read by `load`), candidate
splits (`segment`, `splits`, `samples` for short histories) and the direction-aware verdict
(`detect`). Pure but for `load`."""
