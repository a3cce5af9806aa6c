"""Noise floors: A/A rounds of one commit measured into per-case floors and sim checks
(`calibrate`), and the floors stored on the perf-results branch (`stored`)."""
