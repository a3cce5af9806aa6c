"""Unpacking a commit's tree (``git archive``'s tar) into an export folder, links as links.

A repository may commit a symbolic link that points out of it (``LICENSE-LINK`` ->
``/usr/share/common-licenses/MIT``, or ``../shared/x``): a checkout makes such a link, and
so must an export, or the project (and every pull request adding such a link) could not be
gated. tarfile's ``data`` filter refuses these links, rightly for an archive of unknown
origin: a later member written *through* one would land outside the folder. So every
member goes through the ``data`` filter as before, except that a symbolic link it refuses
for pointing out is set aside and made only once everything else is written, as a link
(its target text as committed), never followed: nothing is written through it, nothing is
read through it here, and a member named under another link is an error.
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

from perfgate.errors import RunnerError


class ExportError(RunnerError):
    """A commit's tree holds what no export may make (a path through a link)."""


def extract_tree(tar: tarfile.TarFile, dest: Path) -> tuple[str, ...]:
    """Extract ``tar`` into ``dest`` (see the module); the paths of the links made that
    point out of ``dest``, as the archive names them."""
    outward: list[tarfile.TarInfo] = []

    def keep(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        if not member.issym():
            return tarfile.data_filter(member, path)
        try:
            return tarfile.data_filter(member, path)
        except (tarfile.AbsoluteLinkError, tarfile.LinkOutsideDestinationError):
            outward.append(member)
            return None

    dest.mkdir(parents=True, exist_ok=True)
    tar.extractall(dest, filter=keep)
    for member in outward:
        _link(member, dest)
    return tuple(member.name for member in outward)


def _link(member: tarfile.TarInfo, dest: Path) -> None:
    """Make ``member``'s link inside ``dest``: every folder on its way a real folder of
    ``dest`` (none a link), and nothing at its place yet."""
    relative = Path(member.name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise ExportError(f"export: link {member.name!r}: expected a path inside the tree")
    folder = dest.resolve()
    for part in relative.parts[:-1]:
        folder = folder / part
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise ExportError(
                f"export: link {member.name!r}: its folder {part!r} is no folder of the "
                "tree (a link or a file); refusing to make it"
            )
        folder.mkdir(exist_ok=True)
    place = folder / relative.name
    if os.path.lexists(place):
        raise ExportError(f"export: link {member.name!r}: the tree holds that path twice")
    os.symlink(member.linkname, place)
