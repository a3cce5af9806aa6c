"""What the watch remembers between runs (`state`), its JSON records (`record`), their file
format (`state_file`) and their snapshots on the perf-results branch (`store`)."""
