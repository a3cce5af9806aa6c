"""asv suites for termplan's hot slices, thread scaling, compile time and the collector.

asv runs *today's* suites on *historical* commits, so every suite checks in ``setup`` that the
feature it measures exists at the benchmarked commit and raises ``NotImplementedError`` (an
asv skip, shown as n/a) when it does not. See ``_common.py`` for the shared checks and the
parameter grids (``PERFGATE_GRID=full`` selects the pinned-runner grid).
"""
