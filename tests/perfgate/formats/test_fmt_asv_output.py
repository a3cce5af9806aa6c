"""perfgate.formats.asv_output: why a benchmark failed, from asv's console output."""

from __future__ import annotations

from pathlib import Path

from perfgate.formats import asv_output
from perfgate.secrets import Redactor

#: ``asv run --show-stderr --quick`` (asv 0.6.6) of a suite with a parameterized benchmark
#: that raises, one whose numpy call fails, and one that works (paths shortened).
OUTPUT = Path(__file__).parents[1] / "data" / "asv066-output-failed.txt"


def test_each_failed_benchmark_gets_its_exception_and_where_it_was_raised() -> None:
    texts = asv_output.failure_texts(OUTPUT.read_text())
    assert texts == {
        "bench.Suite.time_broken": (
            "ValueError: x and y coordinate lengths do not match "
            "(bench.py, line 6, in time_broken)"
        ),
        "bench.time_plain_broken": (
            "ValueError: operands could not be broadcast together with shapes (3,) (4,) "
            "(bench.py, line 9, in time_plain_broken)"
        ),
    }


def test_a_time_out_is_said_as_such() -> None:
    output = (
        "[ 50.00%] ··· bench.time_slow                                  failed\n"
        "[ 50.00%] ···· asv: benchmark timed out (timeout 60.0s)\n"
        "[100.00%] ··· bench.time_ok                                 1.00±0ms\n"
    )
    assert asv_output.failure_texts(output) == {
        "bench.time_slow": "benchmark timed out (timeout 60.0s)"
    }


def test_output_without_failures_names_none() -> None:
    output = "· Discovering benchmarks\n[100.00%] ··· bench.time_ok              1.00±0ms\n"
    assert asv_output.failure_texts(output) == {}
    assert asv_output.failure_texts("") == {}


def test_long_errors_are_cut() -> None:
    output = (
        "[ 50.00%] ··· bench.time_x   failed\n"
        "[ 50.00%] ···· Traceback (most recent call last):\n"
        f"              RuntimeError: {'y' * 1000}\n"
    )
    text = asv_output.failure_texts(output)["bench.time_x"]
    assert len(text) == asv_output.MAX_TEXT and text.endswith("…")


def test_run_folders_are_read_and_redacted(tmp_path: Path) -> None:
    """The texts of a run directory's asv runs, secrets redacted; the first folder wins,
    a folder without output is skipped."""
    secret = "s3cr3t-value-123"
    for name, error in (("main-r001-base", f"KeyError: '{secret}'"), ("main-r001-head", "X")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / asv_output.OUTPUT_FILE).write_text(
            "[ 50.00%] ··· bench.time_x   failed\n"
            "[ 50.00%] ···· Traceback (most recent call last):\n"
            f"              {error}\n"
        )
    (tmp_path / "empty").mkdir()
    folders = asv_output.run_folders(tmp_path)
    assert [f.name for f in folders] == ["main-r001-base", "main-r001-head"]
    texts = asv_output.read_failure_texts([*folders, tmp_path / "empty"], Redactor.of([secret]))
    assert texts == {"bench.time_x": "KeyError: '***'"}


#: asv cuts a long benchmark name from the left to fit its column ("..." first), sometimes
#: at a dot (asv 0.6.6 on a 80-column terminal; names from the rich project's suite).
TRUNCATED = (
    "[ 25.00%] ··· ...ColorSuiteCached.time_downgrade_to_eight_bit           failed\n"
    "[ 25.00%] ···· Traceback (most recent call last):\n"
    '                 File "/x/benchmarks.py", line 197, in time_downgrade_to_eight_bit\n'
    "                   raise ValueError('x and y coordinate lengths do not match')\n"
    "               ValueError: x and y coordinate lengths do not match\n"
    "[ 50.00%] ··· ....ColorSuiteCached.time_downgrade_to_standard           failed\n"
    "[ 50.00%] ···· asv: benchmark timed out (timeout 60.0s)\n"
    "[ 75.00%] ··· benchmarks.ColorSuite.time_downgrade_to_windows           461±50ns\n"
)
NAMES = (
    "benchmarks.ColorSuiteCached.time_downgrade_to_eight_bit",
    "benchmarks.ColorSuiteCached.time_downgrade_to_standard",
    "benchmarks.ColorSuite.time_downgrade_to_windows",
)


def test_a_name_asv_cut_short_is_resolved_to_the_one_benchmark_it_ends() -> None:
    """A broken benchmark whose name asv printed cut short ("...tail") still gets its
    error: the one benchmark of ``names`` that ends with the tail (it got none, and init's
    progress skipped it)."""
    texts = asv_output.failure_texts(TRUNCATED, NAMES)
    assert texts == {
        NAMES[0]: (
            "ValueError: x and y coordinate lengths do not match "
            "(benchmarks.py, line 197, in time_downgrade_to_eight_bit)"
        ),
        NAMES[1]: "benchmark timed out (timeout 60.0s)",
    }


def test_a_cut_name_that_fits_more_than_one_benchmark_gets_no_text() -> None:
    """Two benchmarks end with the tail asv printed: the text is left out rather than
    put on a benchmark it may not belong to."""
    other = "other_benchmarks.ColorSuiteCached.time_downgrade_to_eight_bit"
    texts = asv_output.failure_texts(TRUNCATED, (*NAMES, other))
    assert NAMES[0] not in texts and other not in texts
    assert asv_output.failure_texts(TRUNCATED) == {}  # no names: nothing to resolve against
