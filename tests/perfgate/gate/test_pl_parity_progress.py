"""perfgate.gate.parity_progress: pytest's counts and the suite's compile events."""

from __future__ import annotations

import json

from perfgate.gate.parity_progress import Compiles, PytestCount, status


def test_xdist_quiet_output_is_counted_as_it_comes() -> None:
    """``2 workers [64 items]`` gives the total; result characters count, also mid-line."""
    count = PytestCount()
    assert count.text == "starting (collecting tests)"
    count.feed("created: 2/2 workers\n2 workers [64 items]\n\n....")
    assert count.text == "4/64 tests"
    count.feed("..F.   [ 12%]\n..")
    assert count.text == "10/64 tests, 1 failed"


def test_plain_pytest_collected_line() -> None:
    count = PytestCount()
    count.feed("collected 97 items\n\nfoo.py ....\n")
    assert count.text == "0/97 tests"  # a verbose line with a file name is not counted


def test_compile_events_name_what_is_compiling_now() -> None:
    """Started compiles are shown until their end event; junk lines are ignored."""
    compiles = Compiles()
    lines = [
        {"worker": "gw0", "event": "compiling", "what": "pkg.kernel_a"},
        {"worker": "gw1", "event": "compiling", "what": "pkg.kernel\nb"},
        "not json",
        ["a list"],
        {"worker": "gw1", "event": "compiled", "what": "pkg.kernel\nb", "seconds": 3.0},
    ]
    compiles.feed("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines))
    assert compiles.text.startswith("compiling pkg.kernel_a (first run:")
    assert compiles.finished == 1
    count = PytestCount(total=10, done=3)
    assert status(count, compiles).startswith("3/10 tests, compiling pkg.kernel_a")
