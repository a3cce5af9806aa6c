"""Running a child process for the gate: no secrets in, none out, a time-out is reported."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from perfgate.errors import RunnerError
from perfgate.secrets import redact_env, without_secrets


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
