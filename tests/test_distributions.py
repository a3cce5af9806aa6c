"""The perfgate distribution on its own: ``pip install ./perfgate`` in a fresh virtualenv
gives a working ``perfgate`` command and pulls neither numba, nor mujoco, nor termplan (the
gate serves any asv project; the workloads are this repository's).

Slow (a fresh install of numpy, scipy and asv: a minute or more), so ``make test`` leaves it
out; CI runs it in the test-all job (ci.yml), and ``make test-slow`` runs it here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]


def test_perfgate_installs_alone(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    done = subprocess.run(
        [*pip, "install", "--quiet", "--disable-pip-version-check", str(REPO / "perfgate")],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    listed = subprocess.run(
        [*pip, "list", "--format", "json", "--disable-pip-version-check"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "perfgate" in names and "asv" in names
    assert not names & {"numba", "llvmlite", "mujoco", "termplan"}, sorted(names)
    for argv in (["--help"], ["init", "--help"], ["doctor", "--help"]):
        run = subprocess.run(
            [str(venv / "bin" / "perfgate"), *argv], capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0 and "usage: perfgate" in run.stdout, run.stderr
