"""The pull request number of a commit of main, from the subject GitHub wrote on merge."""

from __future__ import annotations

import pytest

from perfgate.watch.alerts.pulls import PullRef, pull_for_commit, pull_request_number


@pytest.mark.parametrize(
    ("subject", "number"),
    [
        ("Speed up the hot slice (#123)", 123),
        ("Speed up the hot slice (#123)  ", 123),
        ("Merge pull request #45 from octo/faster-slice", 45),
        ("Fix #12 in the sampler (#310)", 310),  # the trailing one is the pull request
        ("Fix #12 in the sampler", None),
        ("Revert (#7) changes to the docs", None),
        ("Bump numba to 0.61", None),
        ("", None),
        ("Squashed (#9)\n\nbody mentions (#10)", 9),
    ],
)
def test_pull_request_number(subject: str, number: int | None) -> None:
    assert pull_request_number(subject) == number


SHA = "c" * 40


def test_the_merged_pull_request_whose_merge_made_the_commit_is_the_culprits() -> None:
    pulls = [
        PullRef(7, merged=False, merge_commit_sha=None, base="main"),  # built on it, open
        PullRef(8, merged=True, merge_commit_sha="d" * 40, base="release"),
        PullRef(9, merged=True, merge_commit_sha=SHA, base="main"),
    ]
    assert pull_for_commit(SHA, pulls, None) == 9
    assert pull_for_commit(SHA, pulls, "main") == 9


def test_a_rebase_merge_is_the_only_merged_pull_request_else_no_guess() -> None:
    rebased = PullRef(5, merged=True, merge_commit_sha="e" * 40, base="main")
    assert pull_for_commit(SHA, [rebased], None) == 5
    other = PullRef(6, merged=True, merge_commit_sha="f" * 40, base="main")
    assert pull_for_commit(SHA, [rebased, other], None) is None
    assert pull_for_commit(SHA, [rebased], "release") is None
    assert pull_for_commit(SHA, [PullRef(4, False, None, "main")], None) is None
    assert pull_for_commit(SHA, [], None) is None
