"""perfgate: a CI performance gate over airspeed-velocity (asv) results.

It runs asv suites for a base and a head commit, separates stable regressions from noise,
compares a variant against its baseline at the same commit, renders a report and decides the
merge. perfgate knows no task: what is compared with what is configuration.
"""

__version__ = "0.2.0"
