"""perfgate.case_label: a case as perfgate prints it, read back; and ``--bench`` taking it."""

from __future__ import annotations

import re

import pytest

from perfgate.case_label import parse_asv_name, parse_label, selection_regex
from perfgate.cli_args import regex
from perfgate.model import CaseKey

ASV_NAME = "sim_hot_slice.SimHotSlice.track_cycles('g1_walk', 'sac_default', 'numpy', 2048)"
KEY = CaseKey(
    "sim_hot_slice.SimHotSlice.track_cycles",
    (("task", "g1_walk"), ("profile", "sac_default"), ("path", "numpy"), ("num_envs", "2048")),
)


def test_a_label_reads_back_to_its_key() -> None:
    assert parse_label(KEY.label()) == KEY
    assert parse_label("hot.Hot.time_x") is None and parse_label("^hot\\.") is None
    assert parse_asv_name(ASV_NAME) == (KEY.benchmark, ("g1_walk", "sac_default", "numpy", 2048))


@pytest.mark.parametrize("text", [KEY.label(), ASV_NAME])
def test_bench_given_a_case_in_either_form_selects_exactly_it(text: str) -> None:
    """The report's label and asv's name both select asv's name of that one case, and no
    other combination (a pasted label was a regex of groups that matched nothing)."""
    pattern = regex(text)
    assert pattern == selection_regex(text)
    assert re.search(pattern, ASV_NAME)
    assert not re.search(pattern, ASV_NAME.replace("2048", "20480"))
    assert not re.search(pattern, ASV_NAME.replace("'numpy'", "'numpy_x'"))


def test_a_regex_stays_a_regex() -> None:
    assert regex("^hot_slice\\.HotSlice\\.time_compute\\(.*2048") == (
        "^hot_slice\\.HotSlice\\.time_compute\\(.*2048"
    )
