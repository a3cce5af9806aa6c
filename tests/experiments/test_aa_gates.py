"""experiments/aa_gates.py: what a run's line says, read from the gate's verdict.json."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "aa_gates.py"
_spec = importlib.util.spec_from_file_location("aa_gates", SCRIPT)
assert _spec is not None and _spec.loader is not None
aa_gates = importlib.util.module_from_spec(_spec)
sys.modules["aa_gates"] = aa_gates  # dataclasses look their module up there
_spec.loader.exec_module(aa_gates)


def test_a_run_that_did_not_pass_lists_its_reasons(tmp_path: Path) -> None:
    (tmp_path / "verdict.json").write_text(
        json.dumps({"verdict": "error", "reasons": ["ERROR: the instruments disagree"]})
    )
    verdict, reasons = aa_gates._verdict(tmp_path)
    line = aa_gates.Outcome(3, 3, verdict, reasons, 201.4).line()
    assert line == "run  3: exit 3 (error) in 201 s\n    ERROR: the instruments disagree"
    assert aa_gates.Outcome(4, 0, "pass", reasons, 150).line() == "run  4: exit 0 (pass) in 150 s"
    assert aa_gates._verdict(tmp_path / "missing") == ("no verdict.json", ())
