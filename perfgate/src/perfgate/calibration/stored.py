"""Calibrated noise floors on the ``perf-results`` branch, where pull-request code cannot
write: ``noise/<machine>/<UTC time>.json`` and its content digest
``noise/<machine>/<UTC time>.digest.json`` (`perfgate.formats.noise`).

Only the history workflow on main (``contents: write``) appends them, with
``perfgate history append-noise`` after ``perfgate calibrate``; gate jobs have a read-only
token and read the newest file of their machine from a fetched ref of the branch
(``perfgate gate --floors-ref``), before any code of the pull request runs. A file whose
digest is missing or does not match its bytes is refused (exit 3), never applied.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from perfgate.errors import ResultFileError
from perfgate.formats.noise import (
    NOISE_FILE_NAME,
    NoiseFile,
    digest_document,
    digest_name,
    parse_noise_floors,
    verified_noise_file,
)
from perfgate.history.append import AppendReport, append
from perfgate.history.branch import branch_git, list_tree, read_blobs, resolve_commit
from perfgate.history.order import NOISE_DIR
from perfgate.retry import RetryPolicy

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _machine_of(path: Path, content: bytes) -> str:
    """The machine a valid noise file was calibrated for (a safe path component)."""
    try:
        data = json.loads(content)
    except ValueError as exc:
        raise ResultFileError(path, f"corrupt or truncated JSON ({exc})") from None
    parse_noise_floors(data, str(path))
    machine = data.get("machine")
    if not isinstance(machine, str) or not _SAFE_NAME.match(machine):
        raise ResultFileError(path, f"machine {machine!r} is not a plain name")
    return machine


def append_noise(
    repo: Path, noise_file: Path, remote: str, branch: str, policy: RetryPolicy | None = None
) -> AppendReport:
    """Append ``noise_file`` and its digest under ``noise/<machine>/`` of ``branch``."""
    content = noise_file.read_bytes()
    machine = _machine_of(noise_file, content)
    if not NOISE_FILE_NAME.match(noise_file.name):
        raise ResultFileError(noise_file, "expected a noise file name <UTC time>.json")
    with tempfile.TemporaryDirectory(prefix="perfgate-noise-") as tmp:
        folder = Path(tmp) / NOISE_DIR / machine
        folder.mkdir(parents=True)
        (folder / noise_file.name).write_bytes(content)
        digest = digest_document(noise_file.name, content)
        (folder / digest_name(noise_file.name)).write_text(json.dumps(digest, indent=1) + "\n")
        return append(repo, Path(tmp), remote, branch, policy)


def newest_noise(repo: Path, ref: str, machine: str) -> NoiseFile | None:
    """The newest noise file of ``machine`` at ``ref`` (a fetched perf-results commit),
    verified against its digest; None when the machine has none. Only names that are UTC
    times count (`NOISE_FILE_NAME`): a file named to sort after every calibration (``zz.json``)
    is not a noise file and can never shadow the newest one."""
    git = branch_git(repo)
    commit = resolve_commit(git, ref, "--floors-ref")
    tree = list_tree(git, commit)
    prefix = f"{NOISE_DIR}/{machine}/"
    names = sorted(
        p
        for p in tree
        if p.startswith(prefix)
        and "/" not in p[len(prefix) :]
        and NOISE_FILE_NAME.match(p[len(prefix) :])
    )
    if not names:
        return None
    path = names[-1]
    digest_path = prefix + digest_name(path[len(prefix) :])
    wanted = [tree[path]] + ([tree[digest_path]] if digest_path in tree else [])
    blobs = read_blobs(git, wanted)
    label = f"{ref}@{commit[:12]}:{path}"
    return verified_noise_file(label, blobs[0], blobs[1] if len(blobs) > 1 else None)
