"""The pull request number of a commit of main, from the subject GitHub wrote on merge."""

from __future__ import annotations

import pytest

from perfgate.watch.pulls import pull_request_number


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
