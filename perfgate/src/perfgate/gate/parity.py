"""The parity stage: the project's correctness command at the head commit, before anything
is measured (a head that computes something else must not be judged on its speed).

Run here (`run_parity`, locally) or taken from CI, where the command already ran once for the
same head commit (`given_result` reads that file for ``perfgate gate --parity-result``;
`ci_result` builds it from the command's exit code and JUnit report).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfgate.config import GateConfig, default_import_roots
from perfgate.errors import RunnerError
from perfgate.formats.junit import JUnitReport
from perfgate.formats.parity_result import read_parity
from perfgate.gate.parity_progress import PROGRESS_FILE_ENV, Compiles, PytestCount, status
from perfgate.model import ParityResult, ParityStatus
from perfgate.process import Watch, run_process
from perfgate.progress import Progress
from perfgate.secrets import Redactor
from perfgate.settings import GateSettings

_FAILED_TEST = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


@dataclass(frozen=True)
class ParityRun:
    """How the parity command ran at head: passed, the failing test ids, output tail."""

    passed: bool
    failing: tuple[str, ...]
    tail: str
    command: tuple[str, ...]
    returncode: int = 0
    timed_out: bool = False


def parity_command(config: GateConfig, quick: bool) -> tuple[str, ...]:
    """The parity command: the quick subset under ``--quick`` when configured."""
    if quick and config.quick_parity_command:
        return config.quick_parity_command
    return config.parity_command


def resolve_command(command: Iterable[str], python: str = sys.executable) -> list[str]:
    """Substitute ``{python}``; ``make`` reuses this interpreter's virtualenv.

    ``VENV``/``PYTHON`` point the Makefile at the running virtualenv, and ``-o STAMP`` stops
    make from rebuilding it because the export's pyproject.toml is newer than the stamp
    (a rebuild from the export would re-point the editable install at the export).
    """
    cmd = [part.replace("{python}", python) for part in command]
    if cmd and Path(cmd[0]).name == "make":
        venv = Path(python).parent.parent
        cmd[1:1] = ["-o", str(venv / ".installed")]
        cmd += [f"VENV={venv}", f"PYTHON={python}"]
    return cmd


def parse_failing_tests(output: str) -> tuple[str, ...]:
    """Test ids from pytest's short summary (``FAILED id`` / ``ERROR id`` lines)."""
    return tuple(dict.fromkeys(_FAILED_TEST.findall(output)))


def run_in_export(
    command: Sequence[str],
    source: Path,
    base_env: Mapping[str, str],
    timeout_s: float,
    roots: Sequence[Path] = (),
    watch: Watch | None = None,
) -> ParityRun:
    """Run the parity command inside the head export with its import ``roots`` first on the
    path (none given: `default_import_roots`); ``watch`` sees its output as it comes."""
    env = dict(base_env)
    paths = [str(r) for r in (roots or default_import_roots(source))]
    env["PYTHONPATH"] = os.pathsep.join(p for p in (*paths, env.get("PYTHONPATH", "")) if p)
    outcome = run_process(command, source, env, timeout_s, watch)
    failing = parse_failing_tests(outcome.tail)
    passed = outcome.returncode == 0 and not outcome.timed_out
    return ParityRun(
        passed,
        failing,
        outcome.tail[-3000:],
        tuple(command),
        outcome.returncode,
        outcome.timed_out,
    )


def progress_watch(progress: Progress, events: Path, redactor: Redactor) -> Watch:
    """A watcher of the parity command's output that keeps ``progress``'s status current:
    pytest's count of tests, and the kernels the suite says it is compiling (``events``,
    the file named by ``PERFGATE_PROGRESS_FILE``; redacted like the output)."""
    count, compiles, offset = PytestCount(), Compiles(), [0]

    def watch(text: str) -> None:
        count.feed(text)
        try:
            with events.open("rb") as file:
                file.seek(offset[0])
                data = file.read()
        except OSError:
            data = b""
        whole = data[: data.rfind(b"\n") + 1]
        offset[0] += len(whole)
        compiles.feed(redactor.text(whole.decode(errors="replace")))
        progress.status(status(count, compiles))

    return watch


def parity_environment(settings: GateSettings, events: Path) -> dict[str, str]:
    """The parity command's environment (before `run_process` keeps its allow-listed
    part): the run's kernel and tools caches, the progress file ``events``, and
    ``PYTHONSAFEPATH`` where the sides are built."""
    env = {**os.environ, **settings.kernel_cache, **settings.tools_cache}
    env[PROGRESS_FILE_ENV] = str(events)
    if settings.builds:  # the build first: no ``python -m`` / ``-c`` folder before it
        env["PYTHONSAFEPATH"] = "1"
    return env


def run_parity(
    settings: GateSettings,
    command: Sequence[str],
    timeout_s: float = 3600.0,
    progress: Progress | None = None,
) -> ParityResult:
    """Run the parity command in the head export; failing test ids go into the summary.
    With ``progress``, its status says how far the command got (`progress_watch`)."""
    cmd = resolve_command(command)
    try:
        events = settings.run_dir / "parity-progress.jsonl"
        env = parity_environment(settings, events)
        roots = settings.import_roots("head", parity=True)
        watch = (
            progress_watch(progress, events, Redactor.from_env(os.environ)) if progress else None
        )
        result = run_in_export(cmd, settings.head_source, env, timeout_s, roots, watch)
    except RunnerError as exc:
        return ParityResult(ParityStatus.ERROR, " ".join(command), str(exc))
    if result.passed:
        return ParityResult(ParityStatus.PASSED, " ".join(command))
    failing = ", ".join(result.failing[:20]) or "(no test ids parsed)"
    tail = result.tail[-600:].strip().replace("\n", " | ")
    summary = f"failing: {failing}; output tail: {tail}"
    return ParityResult(ParityStatus.FAILED, " ".join(command), summary)


def given_result(path: Path, head: str) -> ParityResult:
    """The parity result CI recorded for ``head``; one for another commit, or for no named
    commit, is refused (`UserError`, exit 3) before anything is measured."""
    result = read_parity(str(path), head=head, require_sha=True)
    assert result is not None
    return result


def ci_result(command: str, exit_code: int, sha: str, junit: JUnitReport | None) -> ParityResult:
    """The parity result of one CI run of ``command`` at ``sha``.

    It passed only if the command exited 0 and its JUnit report (if any) has no failing test;
    a failing test under exit 0 is a failure all the same (fail closed). A failure outside
    pytest (lint, type check) names no test, and the summary says to read the job's log.
    """
    failed = junit.failed if junit is not None else ()
    if exit_code == 0 and not failed:
        ran = f"{junit.tests} tests, none failed" if junit is not None else "exit 0"
        return ParityResult(ParityStatus.PASSED, command, ran, sha=sha)
    parts = [f"exit {exit_code}"]
    if junit is not None:
        parts.append(f"{len(failed)} of {junit.tests} tests failed")
    if not failed:
        parts.append("no failing test in the JUnit report: see the parity job's log")
    return ParityResult(
        ParityStatus.FAILED, command, "; ".join(parts), sha=sha, failed_tests=failed
    )
