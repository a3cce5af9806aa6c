"""The environment digest of a footprint: what a case reads that is not a project file.

Two counts of unchanged project files agree only in the same environment: the interpreter,
the installed distributions (their names and versions), valgrind's version, the CPU model
and its flags (the JIT compiles for them), and the variables that reach the measured
process. Each part is kept as its own digest, so a refusal can say which part changed;
values are never stored (a variable may hold a secret), only SHA-256 digests of them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def distributions(found: Iterable[metadata.Distribution] | None = None) -> list[str]:
    """``name==version`` of every installed distribution, sorted (names normalised)."""
    dists = metadata.distributions() if found is None else found
    names = {f"{(d.metadata['Name'] or '').lower().replace('_', '-')}=={d.version}" for d in dists}
    return sorted(names)


def cpu(cpuinfo: str) -> dict[str, str]:
    """The first processor's model name and flags from ``/proc/cpuinfo``'s text."""
    out: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("model name", "flags") and key not in out:
            out[key] = " ".join(sorted(value.split())) if key == "flags" else value.strip()
    return out


def read_cpuinfo(path: Path = Path("/proc/cpuinfo")) -> str:
    """``/proc/cpuinfo``'s text; empty where there is none (then the machine's name)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"machine: {os.uname().machine}"


def normalised(env: Mapping[str, str], places: Mapping[str, str]) -> dict[str, str]:
    """``env`` with each run's own paths (``places``: path -> placeholder, such as the
    export folder -> ``<export>``) named by their placeholder, longest path first, so two
    runs of one environment digest alike."""
    ordered = sorted(places.items(), key=lambda item: -len(item[0]))
    out = {}
    for name, value in env.items():
        for path, placeholder in ordered:
            value = value.replace(path, placeholder)
        out[name] = value
    return out


def environment(
    child_env: Mapping[str, str], valgrind: str | None, cpuinfo: str, dists: Iterable[str]
) -> dict[str, str]:
    """Per part, the digest of this environment (see the module)."""
    return {
        "interpreter": _digest([sys.version, sys.executable, sys.platform, os.uname().machine]),
        "distributions": _digest(sorted(dists)),
        "valgrind": _digest(valgrind or "none"),
        "cpu": _digest(cpu(cpuinfo)),
        "variables": _digest(sorted(child_env.items())),
    }


def differing(base: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The parts whose digests differ (a part known to one side only differs too)."""
    return sorted(k for k in set(base) | set(now) if base.get(k) != now.get(k))
