"""perfgate.config: the [tool.perfgate] section, its defaults and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.config import GateConfig, parse_config
from perfgate.config_files import load_config
from perfgate.errors import ConfigError

REFERENCE = Path(__file__).parent / "data" / "pyproject-perfgate.toml"


def test_reference_config_parses() -> None:
    """The checked-in reference section parses into the documented values."""
    cfg = load_config(REFERENCE)
    assert cfg.alpha == 0.05 and cfg.min_samples == 6 and cfg.confirm
    (pair,) = cfg.baselines
    assert (pair.param, pair.variant, pair.baseline, pair.reference) == (
        "path",
        "assembled",
        "handwritten",
        "numpy",
    )
    assert pair.block_if_slower and pair.threshold == 0.05
    assert cfg.scaling is not None and cfg.scaling.size_param == "num_envs"
    assert cfg.can_block("hot_slice.HotSlice.time_compute") and not cfg.can_block("misc.time_x")
    assert cfg.is_compile_time("compile_time.CompileTime.track_first_call")


def test_thresholds_largest_match_and_noise_floor() -> None:
    """The largest matching rule wins; the threshold never drops below the noise floor."""
    cfg = parse_config({"default_threshold": 0.03, "thresholds": {"^a": 0.05, "a.b": 0.2}})
    assert cfg.threshold_for("zzz") == 0.03
    assert cfg.threshold_for("a.x") == 0.05
    assert cfg.threshold_for("a.b") == 0.2
    assert cfg.effective_threshold("a.x", 0.12) == 0.12
    assert cfg.effective_threshold("a.x", 0.01) == 0.05
    assert cfg.effective_threshold("a.x", None) == 0.05


def test_defaults_are_conservative() -> None:
    """Without configuration everything can block and confirmation is required."""
    cfg = GateConfig()
    assert cfg.can_block("anything") and cfg.confirm and cfg.inconclusive == "error"
    assert cfg.variant_absolute == "report"  # relative to base (a new variant: absolute)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"alpah": 0.05}, r"unknown key\(s\) \['alpah'\]"),
        ({"alpha": 0.9}, "tool.perfgate.alpha"),
        ({"alpha": "0.05"}, "expected a number"),
        ({"default_threshold": -0.1}, "default_threshold"),
        ({"thresholds": {"(": 0.1}}, "invalid regular expression"),
        ({"min_samples": 1}, "at least 2"),
        ({"inconclusive": "pass"}, "inconclusive"),
        ({"confirm": "yes"}, "confirm: expected bool"),
        ({"baseline": [{"param": "path", "variant": "a"}]}, r"baseline\[0\]\.baseline"),
        ({"baseline": [{"param": "p", "variant": "a", "baseline": "a"}]}, "both 'a'"),
        ({"baseline": [{"param": "p", "variant": "a", "baseline": "b", "x": 1}]}, "unknown key"),
        ({"scaling": {"max_efficiency_drop": 2}}, "max_efficiency_drop"),
        ({"scaling": {"efficiency_threshold": -1}}, "efficiency_threshold"),
        ({"blocking": "hot"}, "list of strings"),
        ({"seed": -1}, "tool.perfgate.seed: must be at least 0"),
        ({"pin_threads": 0}, "tool.perfgate.pin_threads: must be at least 1"),
        ({"higher_is_better": ["("]}, r"higher_is_better\[0\]: invalid regular expression"),
        ({"parity_command": []}, "parity_command: expected a command"),
        ({"parity_command": [""]}, "parity_command: expected a command"),
        ({"quick_parity_command": []}, "quick_parity_command: expected a command"),
        ({"variant_absolute": "pass"}, "tool.perfgate.variant_absolute: expected one of"),
        ({"python_path": "src"}, "python_path: expected a list of strings"),
        ({"python_path": []}, "python_path: expected at least one folder"),
        ({"python_path": ["../other"]}, r"python_path\[0\]: expected a folder inside"),
        ({"parity_python_path": ["/abs"]}, r"parity_python_path\[0\]: expected a folder"),
        ({"asv_config": "../asv.conf.json"}, "asv_config: expected a file inside"),
        ({"asv_config": 3}, "asv_config: expected str"),
        ({"build": "conda"}, "tool.perfgate.build: expected one of"),
    ],
)
def test_bad_config_names_the_key(section: dict[str, object], message: str) -> None:
    """Every invalid value raises ConfigError naming what is wrong."""
    with pytest.raises(ConfigError, match=message):
        parse_config(section)


def test_missing_file_and_section(tmp_path: Path) -> None:
    """Required config: missing file/section is an error; optional: defaults."""
    plain = tmp_path / "pyproject.toml"
    plain.write_text("[project]\nname = 'x'\n")
    with pytest.raises(ConfigError, match=r"no \[tool.perfgate\] section"):
        load_config(plain)
    assert load_config(plain, required=False) == GateConfig()
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[tool.perfgate\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(bad, required=False)
    scalar = tmp_path / "scalar.toml"
    scalar.write_text('tool = "x"\n')
    with pytest.raises(ConfigError, match=r"\[tool\] must be a table"):
        load_config(scalar, required=False)


def test_efficiency_threshold_is_optional() -> None:
    """Unset: parallel efficiency is reported only; set: a relative threshold."""
    assert parse_config({"scaling": {}}).scaling.efficiency_threshold is None  # type: ignore[union-attr]
    cfg = parse_config({"scaling": {"efficiency_threshold": 0.05}})
    assert cfg.scaling is not None and cfg.scaling.efficiency_threshold == 0.05


def test_import_roots_default_and_configured(tmp_path: Path) -> None:
    """Unset: an export's ``src`` (src layout), else its root; set: the folders given, and
    the parity command's own folders when those are set."""
    flat, layered = tmp_path / "flat", tmp_path / "layered"
    (layered / "src").mkdir(parents=True)
    flat.mkdir()
    assert GateConfig().import_roots(flat) == (flat,)
    assert GateConfig().import_roots(layered, parity=True) == (layered / "src",)
    cfg = parse_config({"python_path": ["lib/src"], "parity_python_path": ["lib/src", "t/src"]})
    assert cfg.import_roots(flat) == (flat / "lib" / "src",)
    assert cfg.import_roots(flat, parity=True) == (flat / "lib" / "src", flat / "t" / "src")
    only = parse_config({"python_path": ["lib"]})
    assert only.import_roots(flat, parity=True) == (flat / "lib",)
