"""Drive git, asv and the parity command for a gate run (the I/O edge of measurement).

Each side of a comparison is an immutable source export of one commit
(``git archive``, so file mtimes are the commit time and Numba's on-disk cache stays valid
across gate runs). asv runs against the current environment (``--python=same``) with
``PYTHONPATH`` pointing at that export, so today's suites measure the commit's code, one
asv process per side and round, results in a round-private directory.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from perfgate.secrets import redact_env, without_secrets

_FAILED_TEST = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)
_COMPLETE = ".perfgate-export-complete"
#: asv's forkserver imports the suite once per side and round and forks one process per
#: benchmark (each still measured in a fresh process); "spawn" re-imports NumPy, Numba and
#: the suite for every benchmark, which doubled the wall time of a quick-gate round here.
#: Safe with Numba: the server only imports; thread pools start in the forked children.
LAUNCH_METHOD = "forkserver" if sys.platform.startswith("linux") else "spawn"


class RunnerError(RuntimeError):
    """git, asv or the parity command could not be run as asked."""


def git_resolve(repo: Path, rev: str) -> str:
    """The full commit SHA of ``rev`` in ``repo``; an unknown revision is a RunnerError."""
    proc = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    sha = proc.stdout.strip()
    if proc.returncode != 0 or not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise RunnerError(f"unknown revision {rev!r} in {repo}")
    return sha


def is_shallow(repo: Path) -> bool:
    """True when ``repo`` is a shallow clone (its history is cut off)."""
    proc = subprocess.run(
        ["git", "rev-parse", "--is-shallow-repository"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() == "true"


def git_merge_base(repo: Path, a: str, b: str) -> str | None:
    """The best common ancestor of commits ``a`` and ``b``; None when they share no history.

    A shallow clone that cut the common history off is a RunnerError saying so.
    """
    proc = subprocess.run(
        ["git", "merge-base", a, b], cwd=repo, capture_output=True, text=True, check=False
    )
    sha = proc.stdout.strip()
    if proc.returncode == 1 and not sha:
        if is_shallow(repo):
            raise RunnerError(
                f"no merge base of {a[:12]} and {b[:12]} in the shallow clone {repo}: "
                "fetch the full history (actions/checkout fetch-depth: 0, git fetch --unshallow)"
            )
        return None
    if proc.returncode != 0 or not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise RunnerError(f"git merge-base {a[:12]} {b[:12]} in {repo}: {proc.stderr.strip()}")
    return sha


def git_changed_files(repo: Path, sha: str, path: Path) -> list[str]:
    """Files under ``path`` whose working-tree state differs from commit ``sha`` (untracked too).

    Paths are relative to ``repo``, sorted; a git failure is a RunnerError.
    """
    where = path.resolve().relative_to(repo.resolve()).as_posix()
    commands = (  # -z: names as they are (no C quoting of non-ASCII, quotes, newlines)
        ["git", "diff", "-z", "--name-only", "--no-renames", sha, "--", where],
        ["git", "ls-files", "-z", "--others", "--exclude-standard", "--", where],
    )
    found: set[str] = set()
    for command in commands:
        proc = subprocess.run(command, cwd=repo, capture_output=True, check=False)
        if proc.returncode != 0:
            message = proc.stderr.decode(errors="replace").strip()[-300:]
            raise RunnerError(f"{shlex.join(command[:2])} in {repo}: {message}")
        found.update(name for name in proc.stdout.decode(errors="replace").split("\0") if name)
    return sorted(found)


def git_show(repo: Path, sha: str, path: str) -> str:
    """The text of ``path`` at commit ``sha``; a missing file is a RunnerError."""
    proc = subprocess.run(
        ["git", "show", f"{sha}:{path}"], cwd=repo, capture_output=True, check=False
    )
    if proc.returncode != 0:
        raise RunnerError(f"{path} at {sha[:12]}: {proc.stderr.decode(errors='replace')[-300:]}")
    return proc.stdout.decode("utf-8", errors="strict")


def export_commit(repo: Path, sha: str, root: Path) -> Path:
    """Export the tree of ``sha`` to ``root/<sha>`` once; later calls reuse it.

    The export is built in a temporary sibling and renamed into place, so a killed run
    never leaves a half-written tree that a later run would take as complete.
    """
    final = root / sha
    if (final / _COMPLETE).exists():
        return final
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{sha[:12]}-", dir=root))
    try:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", sha], cwd=repo, capture_output=True, check=False
        )
        if archive.returncode != 0:
            raise RunnerError(f"git archive {sha[:12]} failed: {archive.stderr.decode()[-500:]}")
        tar_path = tmp / ".export.tar"
        tar_path.write_bytes(archive.stdout)
        with tarfile.open(tar_path) as tar:
            tar.extractall(tmp, filter="data")
        tar_path.unlink()
        (tmp / _COMPLETE).write_text(sha + "\n")
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final


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


def asv_command(inv: AsvInvocation) -> list[str]:
    """The command line of ``inv`` (pure; the pinning prefix comes first)."""
    cmd = [*inv.prefix, sys.executable, "-m", "asv", "run", "--config", str(inv.config)]
    cmd += ["--python=same", "--set-commit-hash", inv.sha, "--record-samples"]
    cmd += ["--machine", inv.machine, "--launch-method", inv.launch_method, "--show-stderr"]
    for regex in inv.bench:
        cmd += ["--bench", regex]
    for key, value in sorted(inv.attributes.items()):
        cmd += ["-a", f"{key}={value}"]
    return cmd


def asv_environment(inv: AsvInvocation, base: Mapping[str, str]) -> dict[str, str]:
    """The child environment: the export's ``src`` first on the path, then ``inv.env``.

    asv 0.6 drops PYTHONPATH from its benchmark processes unless ``ASV_PYTHONPATH`` is set
    (asv/environment.py, asv/benchmark.py); without it the suites would import the installed
    package instead of the commit's export, and base and head would measure the same code.
    """
    env = dict(base)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(inv.source / "src"), env.get("PYTHONPATH", "")) if p
    )
    env["ASV_PYTHONPATH"] = env["PYTHONPATH"]
    env.update(inv.env)
    return env


def write_round_config(template: Path, results_dir: Path, benchmark_dir: Path, repo: Path) -> Path:
    """Write an asv.conf.json for one round: the template with private results/env dirs."""
    conf = _load_json_with_comments(template)
    conf["repo"] = str(repo.resolve())
    conf["results_dir"] = str(results_dir.resolve())
    conf["html_dir"] = str((results_dir / "html").resolve())
    conf["env_dir"] = str((results_dir / "env").resolve())
    conf["benchmark_dir"] = str(benchmark_dir.resolve())
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / "asv.conf.json"
    path.write_text(json.dumps(conf, indent=2))
    return path


def _load_json_with_comments(path: Path) -> dict:
    try:
        text = path.read_text()
    except OSError as exc:
        raise RunnerError(f"cannot read asv config {path}: {exc}") from None
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    try:
        data = json.loads("\n".join(lines))
    except json.JSONDecodeError as exc:
        raise RunnerError(f"asv config {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RunnerError(f"asv config {path}: expected a JSON object")
    return data


@dataclass(frozen=True)
class ProcessOutcome:
    """Exit code and the last part of the combined output of a child process."""

    returncode: int
    tail: str
    timed_out: bool = False


def run_process(
    cmd: Sequence[str], cwd: Path, env: Mapping[str, str], timeout_s: float
) -> ProcessOutcome:
    """Run ``cmd``; a time-out kills it and is reported, never raised as success.

    The child gets ``env`` without its secrets (no child of the gate needs a token), and
    the values of those secrets are redacted from the output it returns, since output
    tails end up in reports that may be posted.
    """
    outcome = _run(cmd, cwd, without_secrets(env), timeout_s)
    return replace(outcome, tail=redact_env(outcome.tail, env))


def _run(cmd: Sequence[str], cwd: Path, env: dict[str, str], timeout_s: float) -> ProcessOutcome:
    try:
        proc = subprocess.run(
            list(cmd),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        text = out.decode(errors="replace") if isinstance(out, bytes) else out
        return ProcessOutcome(-9, text[-4000:], timed_out=True)
    except OSError as exc:
        raise RunnerError(f"cannot start {cmd[0]}: {exc}") from None
    return ProcessOutcome(proc.returncode, (proc.stdout + proc.stderr)[-8000:])


def run_asv(inv: AsvInvocation, base_env: Mapping[str, str]) -> ProcessOutcome:
    """Run one asv invocation; its results land in the config's results directory."""
    cwd = inv.config.parent
    return run_process(asv_command(inv), cwd, asv_environment(inv, base_env), inv.timeout_s)


@dataclass(frozen=True)
class ParityResult:
    """Outcome of the parity command at head: passed, the failing test ids, output tail."""

    passed: bool
    failing: tuple[str, ...]
    tail: str
    command: tuple[str, ...]


def parse_failing_tests(output: str) -> tuple[str, ...]:
    """Test ids from pytest's short summary (``FAILED id`` / ``ERROR id`` lines)."""
    return tuple(dict.fromkeys(_FAILED_TEST.findall(output)))


def run_parity(
    command: Sequence[str], source: Path, base_env: Mapping[str, str], timeout_s: float
) -> ParityResult:
    """Run the parity command inside the head export with its ``src`` importable."""
    env = dict(base_env)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(source / "src"), env.get("PYTHONPATH", "")) if p
    )
    outcome = run_process(command, source, env, timeout_s)
    failing = parse_failing_tests(outcome.tail)
    passed = outcome.returncode == 0 and not outcome.timed_out
    return ParityResult(passed, failing, outcome.tail[-3000:], tuple(command))


def ensure_asv_machine(machine: str, base_env: Mapping[str, str]) -> None:
    """Register ``machine`` in asv's machine file (non-interactive), once per host."""
    path = Path(base_env.get("HOME", str(Path.home()))) / ".asv-machine.json"
    if path.exists():
        try:
            if machine in json.loads(path.read_text()):
                return
        except (OSError, json.JSONDecodeError):
            pass
    cmd = [sys.executable, "-m", "asv", "machine", "--yes", "--machine", machine]
    outcome = run_process(cmd, Path.cwd(), base_env, 120.0)
    if outcome.returncode != 0:
        raise RunnerError(f"asv machine --machine {machine} failed: {outcome.tail[-500:]}")
