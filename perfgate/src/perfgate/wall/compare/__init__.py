"""The wall clock's comparison (pure): measurements of two sides -> rows with ratio, CI, p,
q, a verdict and its reason. `rows` decides one set of pairs; `runs` builds the pairs of
head vs base and of each variant vs its baseline; `scaling` and `compile_times` are the
report-only tables."""
