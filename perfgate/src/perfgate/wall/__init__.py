"""The wall-clock instrument: asv's timings of both sides in paired, interleaved rounds
(`measure`, with `sampling` choosing what more rounds could settle and `plan` what fits the
budget), compared with bootstrap CIs and rank tests (`compare/`)."""
