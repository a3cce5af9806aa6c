"""perfgate.sim.attribution.case: a sim case named as the report or asv prints it."""

from __future__ import annotations

import pytest

from perfgate.errors import UserError
from perfgate.sim.attribution.case import CaseName, parse_case, resolve

REPORTED = (
    "sim_hot_slice.SimHotSlice.track_cycles(task=g1_walk, profile=sac_default, "
    "path=handwritten, num_envs=2048)"
)
NAMES = ("task", "profile", "path", "num_envs")
PARAMS = (
    ("'g1_walk'", "'motion_tracking'"),
    ("'sac_default'", "'ppo_default'"),
    ("'numpy'", "'handwritten'", "'assembled'"),
    ("2048", "65536"),
)


def test_the_reports_name_is_resolved_to_the_familys_values() -> None:
    """Issue 48, 5: ``perfgate explain`` given the report's name exited 3 ("parameters are
    not Python literals"); it names the case, and its values come from the family."""
    case = parse_case(REPORTED)
    assert (case.module, case.family, case.figure) == ("sim_hot_slice", "SimHotSlice", "cycles")
    assert resolve(case, NAMES, PARAMS) == ("g1_walk", "sac_default", "handwritten", 2048)
    assert case.label() == REPORTED.replace(".track_cycles", "")


def test_asvs_own_form_is_taken_as_given() -> None:
    case = parse_case("sim_hot_slice.SimHotSlice('g1_walk', 'sac_default', 'numpy', 2048)")
    assert case == CaseName(
        "sim_hot_slice", "SimHotSlice", ("g1_walk", "sac_default", "numpy", 2048)
    )
    assert resolve(case, NAMES, PARAMS) == case.params


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (REPORTED.replace("num_envs=2048", "num_envs=4096"), "num_envs=4096 is not one of"),
        (REPORTED.replace("task=", "tusk="), "expected the parameters task, profile"),
        (REPORTED.replace(", num_envs=2048", ""), "expected the parameters"),
    ],
)
def test_a_name_the_family_does_not_have_is_refused_naming_it(text: str, says: str) -> None:
    with pytest.raises(UserError, match=says):
        resolve(parse_case(text), NAMES, PARAMS)
