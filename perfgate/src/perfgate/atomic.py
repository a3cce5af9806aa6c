"""The one atomic file writer: new files are published whole and never overwrite anything.

A file is written to a temporary name beside its target (``.<name>.XXXX.tmp``; readers
refuse such names, see :func:`is_partial_name`), flushed to disk, then published with a
hard link, which fails if the target exists. Result, sample, noise and report files, and
the files the history export writes, all go through here.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from perfgate.errors import UserError


def check_output_dir(folder: str | os.PathLike[str], what: str, holds: str) -> None:
    """Refuse ``folder`` as a place for new files before anything runs: an existing file,
    a path under a file or a place this process may not create files in is a `UserError`
    naming it (as ``what``) and what was expected (a directory, existing or to be created,
    for ``holds``). A symbolic link that leads nowhere (dangling, or a loop), the folder
    itself or one of the folders to be created above it, is refused too: nothing exists
    there, yet nothing can be created there either."""
    path = Path(folder)
    expected = f"expected a directory (existing or to be created) for {holds}"
    if path.exists() and not path.is_dir():
        link = f"a symbolic link to {path.resolve()}, " if path.is_symlink() else ""
        raise UserError(f"{what} {folder}: is {link}an existing file; {expected}")
    existing = path
    while not existing.exists() and existing != existing.parent:
        if existing.is_symlink():
            which = "is" if existing == path else f"{existing} is"
            raise UserError(
                f"{what} {folder}: {which} a symbolic link to {os.readlink(existing)}, which "
                f"leads nowhere; {expected}"
            )
        existing = existing.parent
    if not existing.is_dir():
        raise UserError(f"{what} {folder}: {existing} is a file; {expected}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UserError(f"{what} {folder}: {existing} is not writable; {expected}")


def is_partial_name(name: str) -> bool:
    """True for names of half-written files (``*.tmp``, ``*.tmp-*``): never read as complete."""
    return name.endswith(".tmp") or ".tmp-" in name


#: The mode new files are created with, before the process's umask: the usual 0644 under
#: the usual umask 022 (a file that holds a secret would pass 0o600; none does today).
NEW_FILE_MODE = 0o666


def _create_temporary(target: Path, mode: int) -> tuple[int, Path]:
    """An open, new, uniquely named ``.<name>.XXXXXXXX.tmp`` beside ``target``, created with
    ``mode`` masked by the umask (as any program creates files; ``mkstemp``'s 0600 made
    every report, and a replaced pyproject.toml, readable by its owner only)."""
    for _ in range(100):
        name = target.parent / f".{target.name}.{os.urandom(4).hex()}.tmp"
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


def staged(target: Path, content: bytes, mode: int | None = None) -> Path:
    """A flushed temporary file beside ``target`` holding ``content``; the caller publishes
    it (`publish_new`, or ``os.replace``) and removes the temporary name. ``mode``: exactly
    this mode (a replaced file's own); None: `NEW_FILE_MODE` under the umask."""
    fd, tmp_name = _create_temporary(target, NEW_FILE_MODE if mode is None else 0o600)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        os.unlink(tmp_name)
        raise
    return Path(tmp_name)


def publish_new(tmp: Path, target: Path) -> bool:
    """Move a fully written temporary file to ``target``; False when ``target`` exists."""
    try:
        os.link(tmp, target)  # atomic and fails if target exists
    except FileExistsError:
        return False
    except OSError:
        # No hard links on this filesystem: reserve the name atomically (O_EXCL), then move
        # the finished file over the empty placeholder. A reader in that instant sees an
        # empty file, which every reader refuses as truncated; a racing writer is refused.
        try:
            os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            return False
        os.replace(tmp, target)
        return True
    tmp.unlink()
    return True


def write_new(path: str | os.PathLike[str], content: bytes) -> bool:
    """Write ``content`` to ``path`` unless it exists; False (nothing written) when it does."""
    target = Path(path)
    if target.exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = staged(target, content)
    try:
        published = publish_new(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    if published:
        _fsync_dir(target.parent)
    return published


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to a new file; an existing file is a `UserError` (never overwritten)."""
    target = Path(path)
    if not write_new(target, text.encode("utf-8")):
        raise UserError(f"{target} already exists; result files are never overwritten")
    return target


def write_json_atomic(path: str | os.PathLike[str], data: Any) -> Path:
    """Serialize ``data`` as indented JSON and write it with `write_text_atomic`."""
    return write_text_atomic(path, json.dumps(data, indent=1) + "\n")


def replace_file(path: Path, content: bytes) -> None:
    """Write ``path`` atomically, replacing it (metadata only: results are never replaced);
    the file keeps its mode (0644 stays 0644)."""
    tmp = staged(path, content, _mode_of(path))
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink()
        raise


def _mode_of(path: Path) -> int | None:
    """The permission bits of ``path``; None when it does not exist (a new file)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
