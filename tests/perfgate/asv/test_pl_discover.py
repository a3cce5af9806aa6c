"""`perfgate.asv.discover.check_selection`: ``--bench`` regexes against the discovered
suites, refused with the closest benchmark names (pure)."""

from __future__ import annotations

import pytest

from perfgate.asv.discover import check_selection
from perfgate.errors import UserError
from perfgate.model import CaseKey

NAMES = {
    CaseKey(bench, (("n", "8"),)): f"{bench}(8)"
    for bench in (
        "hot_slice.HotSlice.time_compute",
        "hot_slice.HotSlice.time_reset",
        "collector.Collector.time_collect",
        "scaling.Scaling.time_threads",
    )
}


def test_a_regex_that_selects_something_passes() -> None:
    check_selection(NAMES, ("time_compute", "^collector\\."))
    check_selection(NAMES, ())


def test_a_regex_that_selects_nothing_names_the_closest_benchmarks() -> None:
    with pytest.raises(UserError) as caught:
        check_selection(NAMES, ("^hot_slice\\.HotSlice\\.time_compte$", "time_reset"))
    text = str(caught.value)
    assert text.startswith("--bench '^hot_slice\\\\.HotSlice\\\\.time_compte$' selects none")
    assert "of the 4 benchmark(s)" in text and "time_reset'" not in text
    closest = text.split("closest: ")[1].split(")")[0].split(", ")
    assert closest[0] == "hot_slice.HotSlice.time_compute" and len(closest) == 3


def test_a_regex_that_does_not_compile_is_refused() -> None:
    with pytest.raises(UserError, match=r"--bench 'time_\(': not a regular expression"):
        check_selection(NAMES, ("time_(",))
