"""Running asv for one side of one round (``asv run --python=same``) and registering the
machine. Each side is a source export of one commit; asv runs in the current environment
with ``PYTHONPATH`` pointing at that export, so today's suites measure the commit's code,
one asv process per side and round, results in a round-private directory.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from perfgate.config import default_import_roots
from perfgate.errors import RunnerError
from perfgate.process import Job, ProcessOutcome, Watch, run_process, run_processes

#: asv's forkserver imports the suite once per side and round and forks one process per
#: benchmark (each still measured in a fresh process); "spawn" re-imports NumPy, Numba and
#: the suite for every benchmark, which doubled the wall time of a quick-gate round here.
#: Safe with Numba: the server only imports; thread pools start in the forked children.
LAUNCH_METHOD = "forkserver" if sys.platform.startswith("linux") else "spawn"


@dataclass(frozen=True)
class AsvInvocation:
    """One ``asv run --python=same`` of one side for one round."""

    config: Path
    sha: str
    source: Path
    machine: str
    bench: Sequence[str] = ()
    attributes: Mapping[str, str] = field(default_factory=dict)
    prefix: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = 1800.0
    launch_method: str = LAUNCH_METHOD
    #: folders of the export first on ``PYTHONPATH`` (empty: `default_import_roots`)
    import_roots: Sequence[Path] = ()
    #: add the samples to the commit's result already in the results folder (asv's
    #: ``--append-samples``): several runs of one commit, spread in time, make one result
    append_samples: bool = False


def asv_command(inv: AsvInvocation) -> list[str]:
    """The command line of ``inv`` (pure; the pinning prefix comes first)."""
    cmd = [*inv.prefix, sys.executable, "-m", "asv", "run", "--config", str(inv.config)]
    cmd += ["--python=same", "--set-commit-hash", inv.sha, "--record-samples"]
    if inv.append_samples:
        cmd.append("--append-samples")
    cmd += ["--machine", inv.machine, "--launch-method", inv.launch_method, "--show-stderr"]
    for regex in inv.bench:
        cmd += ["--bench", regex]
    for key, value in sorted(inv.attributes.items()):
        cmd += ["-a", f"{key}={value}"]
    return cmd


def asv_environment(inv: AsvInvocation, base: Mapping[str, str]) -> dict[str, str]:
    """The child environment: the export's import roots first on the path, then ``inv.env``.

    asv 0.6 drops PYTHONPATH from its benchmark processes unless ``ASV_PYTHONPATH`` is set
    (asv/environment.py, asv/benchmark.py); without it the suites would import the installed
    package instead of the commit's export, and base and head would measure the same code.
    """
    env = dict(base)
    roots = inv.import_roots or default_import_roots(inv.source)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (*(str(r) for r in roots), env.get("PYTHONPATH", "")) if p
    )
    env["ASV_PYTHONPATH"] = env["PYTHONPATH"]
    env.update(inv.env)
    return env


def run_asv(
    inv: AsvInvocation, base_env: Mapping[str, str], watch: Watch | None = None
) -> ProcessOutcome:
    """Run one asv invocation; its results land in the config's results directory.
    ``watch`` gets asv's output as it comes (redacted), all of it, where the outcome keeps
    only its tail."""
    cwd = inv.config.parent
    env = asv_environment(inv, base_env)
    return run_process(asv_command(inv), cwd, env, inv.timeout_s, watch)


def run_asv_together(
    invs: Sequence[AsvInvocation], base_env: Mapping[str, str]
) -> list[ProcessOutcome]:
    """Run several asv invocations at the same time (`perfgate.process.run_processes`).

    Every ``asv run`` rewrites the machine file in ``$HOME`` (asv's ``Machine.load`` saves
    it, not atomically), so runs at the same time would read each other's half-written
    file: each gets a home of its own beside its results, with a copy of the file.
    """
    jobs = []
    for inv in invs:
        env = {**asv_environment(inv, base_env), "HOME": str(_private_home(inv, base_env))}
        jobs.append(Job(asv_command(inv), inv.config.parent, env, inv.timeout_s))
    return run_processes(jobs)


def _private_home(inv: AsvInvocation, base_env: Mapping[str, str]) -> Path:
    """``home/`` beside the invocation's config, holding a copy of the caller's machine file."""
    home = inv.config.parent / "home"
    home.mkdir(parents=True, exist_ok=True)
    source = _machine_file(base_env)
    if source.is_file():
        shutil.copyfile(source, home / source.name)
    return home


def _machine_file(base_env: Mapping[str, str]) -> Path:
    return Path(base_env.get("HOME", str(Path.home()))) / ".asv-machine.json"


def ensure_asv_machine(machine: str, base_env: Mapping[str, str]) -> None:
    """Register ``machine`` in asv's machine file (non-interactive), once per host."""
    path = _machine_file(base_env)
    if path.exists():
        try:
            if machine in json.loads(path.read_text()):
                return
        except (OSError, json.JSONDecodeError):
            pass
    cmd = [sys.executable, "-m", "asv", "machine", "--yes", "--machine", machine]
    # asv 0.6 reads an asv.conf.json in its working folder even for `asv machine`: run it
    # beside a minimal one, not in the caller's folder (a project whose configuration is in
    # benchmarks/ has none at its root, and `perfgate init` failed there on a new host)
    with tempfile.TemporaryDirectory(prefix="perfgate-asv-machine-") as folder:
        conf = {"version": 1, "project": "perfgate-machine", "repo": "."}
        (Path(folder) / "asv.conf.json").write_text(json.dumps(conf))
        outcome = run_process(cmd, Path(folder), base_env, 120.0)
    if outcome.returncode != 0:
        raise RunnerError(f"asv machine --machine {machine} failed: {outcome.tail[-500:]}")
