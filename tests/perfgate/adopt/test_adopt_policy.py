"""perfgate.adopt.policy: the written policy says what init found and loads as the gate
reads it; the pyproject.toml surgery touches nothing but the gate's tables."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import golden_check

from perfgate.adopt.measured import with_trials
from perfgate.adopt.parity_trial import Trial, TrialOutcome
from perfgate.adopt.policy import Proposal, has_policy, render_policy, with_policy
from perfgate.adopt.survey import PARITY_PLACEHOLDER, PYTEST, Family, Guess
from perfgate.config_files import config_from_text

GOLDEN = Path(__file__).parent / "golden"
PROPOSAL = Proposal(
    asv_config="benchmarks/asv.conf.json",
    build=Guess("pip", "compiled sources: pkg/fast.c"),
    parity=Guess(PYTEST, "pytest (pytest.ini)"),
    families=(Family("bench_core", 12, ("time",)), Family("memory", 2, ("peakmemory",))),
    blocking=(r"^bench_core\.",),
    thresholds=((r"^bench_core\.", 0.1),),
    thresholds_reason="from asv.conf.json's regressions_thresholds",
    instruments=Guess(("wall",), "no benchmark in the sim family: the wall clock"),
)


def test_rendered_policy_golden() -> None:
    golden_check.check_golden(GOLDEN / "policy.pyproject.toml", render_policy(PROPOSAL, True))
    golden_check.check_golden(GOLDEN / "perfgate.toml", render_policy(PROPOSAL, False))


def test_rendered_policy_loads_as_proposed() -> None:
    """Both forms parse to the same configuration, holding every proposed value."""
    in_pyproject = config_from_text(render_policy(PROPOSAL, True), "p")
    own = config_from_text(render_policy(PROPOSAL, False), "o", top_level=True)
    for config in (in_pyproject, own):
        assert config.asv_config == "benchmarks/asv.conf.json" and config.build == "pip"
        assert config.parity_command == PYTEST
        assert config.blocking == (r"^bench_core\.",)
        assert config.threshold_for("bench_core.K.time_x") == 0.1
        assert not config.can_block("memory.M.peakmem_x")
        assert config.instruments == ("wall",)


PYPROJECT = """[project]
name = "x"

[tool.perfgate]
min_samples = 3

[tool.perfgate.thresholds]
'^a' = 0.2

[[tool.perfgate.baseline]]
param = "p"
variant = "v"
baseline = "b"

[tool.ruff]
line-length = 99
"""


def test_with_policy_replaces_only_the_gate_s_tables() -> None:
    assert has_policy(PYPROJECT) and not has_policy("[tool.ruff]\n")
    policy = render_policy(PROPOSAL, True)
    new = with_policy(PYPROJECT, policy)
    assert "min_samples = 3" not in new and "variant" not in new
    assert new.startswith('[project]\nname = "x"\n') and "[tool.ruff]\nline-length = 99" in new
    assert new.endswith(policy)
    assert with_policy(new, policy) == new  # init's own block is replaced, not repeated
    assert config_from_text(new, "new").build == "pip"
    assert with_policy("", policy) == policy


QUICK = (*PYTEST, "--pyargs", "pkg.tests.benchmarks.test_shade")
SHA = "0123456789abcdef" * 2 + "01234567"
QUICK_FAILED = Trial(
    QUICK,
    TrialOutcome.FAILED,
    2.5,
    600.0,
    3,
    'INTERNALERROR>   File "pkg/tests/benchmarks/__init__.py", line 3\n'
    "INTERNALERROR> AttributeError: 'pytest' has no marker 'benchmark'",
    SHA,
)
FULL_PASSED = Trial(PYTEST, TrialOutcome.PASSED, 41.25, 600.0, 0, "", SHA)


def test_rendered_policy_with_parity_runs_golden() -> None:
    """A quick command that failed at HEAD is written commented out with its own last
    lines; the full command that passed is written with its seconds in the costs."""
    proposal = replace(PROPOSAL, quick_parity=Guess(QUICK, "the tests of shade"))
    proposal = with_trials(proposal, {QUICK: QUICK_FAILED, PYTEST: FULL_PASSED})
    text = render_policy(proposal, True)
    golden_check.check_golden(GOLDEN / "policy.parity-runs.pyproject.toml", text)
    config = config_from_text(text, "pyproject.toml")
    assert config.quick_parity_command is None and config.parity_command == PYTEST
    assert config.costs is not None and config.costs.parity_s == 41.25
    assert config.costs.quick_parity_s is None and config.costs.benchmarks == ()


def test_a_full_command_that_did_not_pass_leaves_the_placeholder() -> None:
    stopped = replace(FULL_PASSED, outcome=TrialOutcome.TIMED_OUT, error="collected 9 items")
    proposal = with_trials(PROPOSAL, {PYTEST: stopped})
    text = render_policy(proposal, False)
    config = config_from_text(text, "perfgate.toml", top_level=True)
    assert config.parity_command == PARITY_PLACEHOLDER and config.costs is None
    assert "did not finish within the limit of 10 min (stopped)" in text
    assert "--parity-minutes 30` runs it to its end" in text and "#   collected 9 items" in text
