"""The gate's stages, in the order one run takes them (`run` runs them):

context -> parity -> measure (each instrument, `instruments`) -> compare -> decide ->
render (`perfgate.report`) -> publish. `stored_results` feeds compare, decide, render and
publish from stored asv results (``perfgate compare``).
"""
