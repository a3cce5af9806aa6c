"""The valgrind command line of the simulated instrument and the dump files it reads back.

Settings that make a count repeatable (all part of the sim fingerprint):

- callgrind with cache simulation, instrumentation off at start (``--instr-atstart=no``):
  only what the client requests switch on is simulated and counted;
- a fixed cache geometry (`CACHE`: 32 KiB 8-way L1s, 8 MiB 16-way last level, 64-byte lines,
  the geometry CodSpeed uses), not the host's (callgrind would read it from cpuid: 256 MiB
  direct-mapped on the AMD machine here);
- address-space randomisation off (``setarch -R``), ``PYTHONMALLOC=malloc`` (CPython's own
  arenas would add allocator work that moves with the heap's history) and a fixed
  ``PYTHONHASHSEED``, so a process lays out its memory the same way every run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfgate.errors import UserError
from perfgate.sim.cost import Events

#: (size bytes, associativity, line bytes) of the simulated caches
CACHE = {"I1": (32768, 8, 64), "D1": (32768, 8, 64), "LL": (8388608, 16, 64)}
INSTALL_HINT = "install it with `sudo apt-get install -y valgrind` (Debian, Ubuntu)"
#: environment of every measured process (on top of the run's own)
DETERMINISTIC_ENV = {"PYTHONMALLOC": "malloc", "PYTHONHASHSEED": "0"}
#: The variable by which the harness gives a measured process valgrind's version, which it
#: asked already: the suite's class bodies digest the version into their asv ``version``
#: (`perfgate.sim.suite`), and asked by the measured process itself, as it imports the
#: suite, the answer is a child process whose timing sets the memory layout (see
#: `perfgate.sim.suite.installed_valgrind`).
VERSION_VARIABLE = "PERFGATE_SIM_VALGRIND"
_TRIGGER = re.compile(r"^desc: Trigger: Client Request: (\S+)$", re.MULTILINE)
_EVENTS = re.compile(r"^events: (.+)$", re.MULTILINE)
_SUMMARY = re.compile(r"^summary: (.+)$", re.MULTILINE)


class ValgrindMissing(UserError):
    """valgrind (or setarch) is not installed: the sim instrument cannot run."""


def cache_text() -> str:
    """The simulated geometry as callgrind writes it on its command line."""
    return " ".join(f"{k}={s},{a},{b}" for k, (s, a, b) in CACHE.items())


def valgrind_version(which: str | None = None) -> str:
    """valgrind's version (``3.19.0``); `ValgrindMissing` names the install command."""
    path = which or shutil.which("valgrind")
    if path is None:
        raise ValgrindMissing(
            f"valgrind not found on PATH: the sim instrument needs it; {INSTALL_HINT}"
        )
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        raise ValgrindMissing(f"valgrind at {path} cannot run ({exc}); {INSTALL_HINT}") from None
    text = done.stdout.strip()
    if done.returncode != 0 or not text.startswith("valgrind-"):
        raise ValgrindMissing(
            f"{path} --version said {text or done.stderr.strip()!r}; {INSTALL_HINT}"
        )
    return text.removeprefix("valgrind-")


def installed_version() -> str | None:
    """valgrind's version, None where it is not installed (or cannot run)."""
    try:
        return valgrind_version()
    except ValgrindMissing:
        return None


def command(out_dir: Path, argv: Sequence[str]) -> list[str]:
    """``argv`` under callgrind with the fixed settings, dumps written into ``out_dir``."""
    setarch = shutil.which("setarch")
    if setarch is None:
        raise ValgrindMissing("setarch not found (util-linux): needed to turn ASLR off")
    geometry = [f"--{k}={s},{a},{b}" for k, (s, a, b) in CACHE.items()]
    return [
        setarch,
        "-R",  # no address-space randomisation: the same layout every run
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--cache-sim=yes",
        *geometry,
        "--dump-line=no",
        "--compress-strings=no",
        f"--callgrind-out-file={out_dir / 'callgrind.out'}",
        *argv,
    ]


@dataclass(frozen=True)
class Dump:
    """One dump of callgrind: the name its client request gave it and its counts."""

    name: str
    events: Events


def parse_dump(text: str) -> Dump | None:
    """The trigger name and the summary counts of one callgrind dump file's header; None
    for a dump no client request named (the final one at exit)."""
    trigger = _TRIGGER.search(text)
    if trigger is None:
        return None
    names, summary = _EVENTS.search(text), _SUMMARY.search(text)
    if names is None or summary is None:
        raise ValueError(f"callgrind dump {trigger.group(1)!r} without events or summary")
    keys, values = names.group(1).split(), summary.group(1).split()
    if len(values) < len(keys):  # callgrind leaves out trailing zero counts
        values += ["0"] * (len(keys) - len(values))
    if len(keys) != len(values):
        raise ValueError(f"callgrind dump {trigger.group(1)!r}: {keys} vs {values}")
    return Dump(
        trigger.group(1), Events.from_counts(dict(zip(keys, map(int, values), strict=True)))
    )


#: Bytes of a dump file that hold its header (events and summary come before any
#: per-function cost).
HEADER_LIMIT = 64 * 1024


def wanted_dumps(
    out_dir: Path, names: Iterable[str], whole: bool = False
) -> Iterator[tuple[Path, Dump, str]]:
    """Every dump file of ``out_dir`` that a client request in ``names`` triggered, in file
    order: its path, its header's `Dump`, and its text (the header; with ``whole``, the
    whole file, read once)."""
    wanted = set(names)
    for path in sorted(out_dir.glob("callgrind.out*")):
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            text = handle.read(HEADER_LIMIT)
            dump = parse_dump(text)
            if dump is None or dump.name not in wanted:
                continue
            if whole:
                text += handle.read()
        yield path, dump, text


def read_dumps(out_dir: Path, names: Iterable[str]) -> dict[str, Events]:
    """The counts of every expected dump in ``out_dir``; a name dumped twice is an error
    (a case counted twice would be wrong). Names not dumped are simply absent."""
    found: dict[str, Events] = {}
    for _path, dump, _text in wanted_dumps(out_dir, names):
        if dump.name in found:
            raise ValueError(f"callgrind dumped {dump.name!r} twice in {out_dir}")
        found[dump.name] = dump.events
    return found


def fingerprint(version: str, target: Mapping[str, str]) -> dict[str, str]:
    """What must be equal for two sim figures to be compared: valgrind, the simulated
    caches and the CPU the measured code was compiled for."""
    return {"valgrind": version, "cache": cache_text(), **target}
