"""perfgate.history.order: which suite a history publishes, which commits a run measures."""

from __future__ import annotations

import pytest

from perfgate.history.order import (
    check_machine,
    commits_to_measure,
    export_layout,
    measured_prefixes,
    newest_suite,
    stored_suites,
    suite_path,
)

C = [f"{k:x}" * 40 for k in range(10, 16)]  # c[0] newest ... c[5] oldest


def test_suite_path_needs_a_full_commit_id() -> None:
    assert suite_path(C[0]) == f"suites/{C[0]}.json"
    for bad in ("HEAD", C[0][:8], C[0].upper(), "", f"../{C[0]}"):
        with pytest.raises(ValueError, match="suite commit"):
            suite_path(bad)


def test_stored_suites_keeps_canonical_names_only() -> None:
    paths = [
        f"suites/{C[1]}.json",
        f"suites/{C[2]}.0123456789ab.json",  # content-renamed re-run: not canonical
        f"m1/{C[1][:8]}-virtualenv.json",
        "benchmarks.json",
        f"other/{C[3]}.json",
    ]
    assert stored_suites(paths) == {C[1]: f"suites/{C[1]}.json"}


def test_newest_suite_follows_history_not_append_order() -> None:
    suites = {C[3]: "suites/3", C[1]: "suites/1", C[4]: "suites/4"}
    assert newest_suite(C, suites) == "suites/1"
    assert newest_suite(C[2:], suites) == "suites/3"
    assert newest_suite(C[5:], suites) is None
    assert newest_suite([], suites) is None


def test_export_layout_takes_the_newest_suite_and_drops_the_suites_folder() -> None:
    tree = {
        "benchmarks.json": "blob-last-appended",
        f"suites/{C[1]}.json": "blob-new",
        f"suites/{C[3]}.json": "blob-old",
        "m1/machine.json": "blob-m",
        f"m1/{C[3][:8]}-virtualenv.json": "blob-r",
    }
    layout = export_layout(tree, C)
    assert layout == {
        "benchmarks.json": "blob-new",
        "m1/machine.json": "blob-m",
        f"m1/{C[3][:8]}-virtualenv.json": "blob-r",
    }
    assert export_layout(tree, C[2:])["benchmarks.json"] == "blob-old"
    assert export_layout(tree, C[4:])["benchmarks.json"] == "blob-last-appended"


def test_measured_prefixes_reads_one_machines_result_names() -> None:
    paths = [
        "m1/machine.json",
        f"m1/{C[1][:8]}-virtualenv.json",
        f"m1/{C[2][:8]}-virtualenv-py3.11.0123456789ab.json",
        f"m2/{C[3][:8]}-virtualenv.json",
        f"suites/{C[4]}.json",
        "m1/notes.txt",
    ]
    assert measured_prefixes(paths, "m1") == {C[1][:8], C[2][:8]}
    assert measured_prefixes(paths, "m2") == {C[3][:8]}
    assert measured_prefixes(paths, "m3") == set()


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b", ".hidden"])
def test_machine_names_must_name_one_folder(bad: str) -> None:
    with pytest.raises(ValueError, match="--machine"):
        check_machine(bad)


@pytest.mark.parametrize(
    ("measured", "cap", "expected"),
    [
        ({2}, 10, [0, 1]),  # back to the newest measured commit, exclusive
        ({0, 3}, 10, [0, 1, 2]),  # the tip is measured again (a re-run), gaps behind it too
        ({1}, 10, [0]),  # no gap
        (set(), 3, [0, 1, 2]),  # a new machine: the last `cap` commits
        ({5}, 2, [0, 1]),  # a long gap: capped
        (set(), 1, [0]),
    ],
)
def test_commits_to_measure(measured: set[int], cap: int, expected: list[int]) -> None:
    prefixes = {C[k][:8] for k in measured}
    assert commits_to_measure(C, prefixes, cap) == [C[k] for k in expected]


def test_commits_to_measure_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="--max-commits"):
        commits_to_measure(C, set(), 0)
    with pytest.raises(ValueError, match="history"):
        commits_to_measure([], set(), 1)


def test_export_layout_leaves_the_watch_state_out() -> None:
    tree = {
        "m1/machine.json": "blob-m",
        "watch/0123456789abcdef/0001-0123456789ab.json": "blob-w",
    }
    assert export_layout(tree, C) == {"m1/machine.json": "blob-m"}
