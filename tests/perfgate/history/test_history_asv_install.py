"""asv.conf.json's install path replaces the project at every commit of a history run.

The history job (ci/history-run.sh) measures several commits in one environment asv built:
asv runs ``uninstall_command`` and then ``install_command`` with each commit's wheel. Every
commit's termplan wheel has the same version (0.2.0), and pip skips a wheel of the installed
version ("already installed with the same version as the provided wheel") unless told to
reinstall; the uninstall named asv's ``{project}`` (perfgate, the display name), never
termplan. So every commit after the first was measured with the first commit's termplan, and
the watch acceptance's slowdown at commit 7 could never show. Here the commands of this
repository's asv.conf.json are run as asv runs them (its ``in-dir=`` and ``return-code=``
prefixes, its placeholders) in a fresh virtualenv, over two wheels of one version whose code
differs; the one installed last must be the one importable. The command installing this
checkout's perfgate (``{conf_dir}/perfgate``) is left out: it does not install termplan, and
building perfgate would only cost time.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from perfgate.formats.asv_conf import read_asv_conf

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[3]


def _run_asv_command(command: str, values: dict[str, str], cwd: Path, env_dir: Path) -> None:
    """Run one asv.conf.json command as asv does: placeholders filled, the ``in-dir=`` and
    ``return-code=any`` prefixes honoured, ``python`` being the environment's."""
    words = [w.format(**values) for w in shlex.split(command)]
    any_code = False
    while words and "=" in words[0] and words[0].split("=", 1)[0] in ("in-dir", "return-code"):
        key, value = words.pop(0).split("=", 1)
        if key == "in-dir":
            cwd = Path(value)
        else:
            any_code = value == "any"
    path = f"{env_dir / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path, "VIRTUAL_ENV": str(env_dir)}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(words, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert any_code or done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"


def _wheel(dest: Path, step: int) -> Path:
    """Commit ``step``'s termplan 0.2.0 wheel, whose ``termplan.STEP`` is ``step`` (written
    by hand: the build is not what is tested, and no build backend is needed)."""
    dist = "termplan-0.2.0.dist-info"
    files = {
        "termplan/__init__.py": f"STEP = {step}\n",
        f"{dist}/METADATA": "Metadata-Version: 2.1\nName: termplan\nVersion: 0.2.0\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = hashlib.sha256(text.encode()).digest()
        b64 = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        record.append(f"{name},sha256={b64},{len(text.encode())}")
    files[f"{dist}/RECORD"] = "\n".join([*record, f"{dist}/RECORD,,"]) + "\n"
    dest.mkdir(parents=True)
    wheel = dest / "termplan-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def test_each_commit_of_one_run_installs_its_own_termplan(tmp_path: Path) -> None:
    conf = read_asv_conf(REPO / "asv.conf.json")
    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    installed = []
    for step in (1, 2):  # two commits, measured one after the other in one environment
        wheel = _wheel(tmp_path / f"commit-{step}", step)
        values = {"env_dir": str(env_dir), "build_dir": str(wheel.parent), "conf_dir": str(REPO)}
        values |= {"build_cache_dir": str(wheel.parent), "project": conf["project"]}
        values["wheel_file"] = str(wheel)
        for command in conf.get("uninstall_command", []):
            _run_asv_command(command, values, env_dir, env_dir)
        for command in conf["install_command"]:
            if "{wheel_file}" in command:
                _run_asv_command(command, values, wheel.parent, env_dir)
        probe = [str(env_dir / "bin" / "python"), "-c", "import termplan; print(termplan.STEP)"]
        shown = subprocess.run(probe, cwd=tmp_path, capture_output=True, text=True, check=True)
        installed.append(int(shown.stdout))
    assert installed == [1, 2], "the second commit ran with the first commit's termplan"
