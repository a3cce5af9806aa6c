"""Running a child process for the gate: no secrets in, none out, a time-out is reported."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfgate.errors import RunnerError
from perfgate.secrets import Redactor, child_environment

#: How much of a child's combined output is kept (after redaction).
TAIL_CHARS = 8000
TIMEOUT_TAIL_CHARS = 4000


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

    The child gets the allow-listed part of ``env`` (``secrets.child_environment``: no
    child of the gate needs a credential), and the secrets of ``env`` are redacted from its
    whole output before the tail is cut, since output tails end up in reports that may be
    posted (cutting first could leave a secret's suffix).
    """
    return _run(cmd, cwd, child_environment(env), timeout_s, Redactor.from_env(env))


def _run(
    cmd: Sequence[str], cwd: Path, env: dict[str, str], timeout_s: float, redactor: Redactor
) -> ProcessOutcome:
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
        return ProcessOutcome(-9, redactor.text(text)[-TIMEOUT_TAIL_CHARS:], timed_out=True)
    except OSError as exc:
        raise RunnerError(redactor.text(f"cannot start {cmd[0]}: {exc}")) from None
    return ProcessOutcome(proc.returncode, redactor.text(proc.stdout + proc.stderr)[-TAIL_CHARS:])
