"""The shards of one sharded gate run, read and checked before anything is merged (``perfgate
merge``): every refusal is a `ShardSetError` (exit 3) naming the shards and what differs.

A set is mergeable when every shard K of N is there exactly once, all measured the same base
and head with the same plan (its digest and planned cases), the cases they measured split the
plan exactly, they used the same configuration, machine name and noise floors, and every
machine fingerprint (start and end of each shard) matches the first shard's in every
comparability key (`perfgate.machine.COMPARABILITY_KEYS`, minus ``fingerprint_ignore``):
a merged verdict is only as good as the claim that all its cases ran on identical machines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.errors import UserError
from perfgate.formats import samples
from perfgate.formats.shard_manifest import ShardManifest, read_manifest
from perfgate.gate.context import comparable
from perfgate.model import (
    CaseKey,
    EnvironmentCheck,
    ParityStatus,
    Round,
    natural_key,
    with_asv_environments,
)


class ShardSetError(UserError):
    """The shards cannot be merged into one verdict (exit 3)."""


@dataclass(frozen=True)
class Shard:
    """One shard folder: its manifest and the rounds of its sample files."""

    folder: Path
    manifest: ShardManifest
    rounds: tuple[Round, ...]

    @property
    def name(self) -> str:
        """``shard K/N (runner R, FOLDER)``: how refusals and the report name it."""
        m = self.manifest
        return f"shard {m.shard}/{m.of} (runner {m.runner}, {self.folder})"


def _rounds(folder: Path, m: ShardManifest) -> tuple[Round, ...]:
    """The shard's rounds as it ran them: paired cases from its sample files, one-sided
    cases from its manifest. A sample file of other commits is refused."""
    out: list[Round] = []
    for name in m.samples:
        run, rounds = samples.read_rounds(folder / name)
        if (run.base, run.head) != (m.base, m.head):
            raise ShardSetError(
                f"{folder / name}: base/head {run.base}/{run.head} are not the shard's"
            )
        out += rounds
    extra: dict[tuple[str, int], list[Any]] = {}
    for o in m.one_sided:
        extra.setdefault((o.phase, o.round), []).append(o)
    merged = []
    for rnd in out:
        base, head = dict(rnd.base), dict(rnd.head)
        for o in extra.pop((rnd.phase, rnd.index), []):
            (base if o.side == "base" else head)[o.key] = o.samples
        merged.append(Round(rnd.index, rnd.phase, rnd.order, base, head))
    if extra:
        raise ShardSetError(
            f"{folder}: one-sided cases of rounds its sample files lack: {sorted(extra)}"
        )
    return tuple(merged)


def read_shards(folders: Sequence[Path]) -> list[Shard]:
    """Read every shard folder (manifest and sample files), in the order given."""
    if not folders:
        raise ShardSetError("no shard folders given")
    shards = []
    for folder in folders:
        m = read_manifest(folder)
        shards.append(Shard(folder, m, _rounds(folder, m)))
    return shards


def check_complete(shards: Sequence[Shard]) -> None:
    """All K of N present exactly once, of one N, of the same base, head and configuration."""
    counts = sorted({s.manifest.of for s in shards})
    if len(counts) != 1:
        names = "; ".join(f"{s.name} of {s.manifest.of}" for s in shards)
        raise ShardSetError(f"the shards split the run differently: {names}")
    count = counts[0]
    seen: dict[int, list[Shard]] = {}
    for s in shards:
        seen.setdefault(s.manifest.shard, []).append(s)
    twice = [
        f"{k}/{count}: {', '.join(str(s.folder) for s in v)}"
        for k, v in sorted(seen.items())
        if len(v) > 1
    ]
    if twice:
        raise ShardSetError(f"duplicate shards (each must be given once): {'; '.join(twice)}")
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        raise ShardSetError(
            f"missing shard(s) {', '.join(missing)}: no verdict from part of the run"
        )
    first = shards[0]
    for s in shards[1:]:
        for field in ("base", "head", "config_source"):
            mine, theirs = getattr(s.manifest, field), getattr(first.manifest, field)
            if mine != theirs:
                raise ShardSetError(f"{s.name} has {field} {mine!r}, {first.name} {theirs!r}")


def check_plan(shards: Sequence[Shard]) -> None:
    """Same plan everywhere; the measured cases split it exactly, and each shard's samples
    hold only its own cases."""
    first = shards[0]
    for s in shards[1:]:
        if (s.manifest.plan_digest, s.manifest.planned) != (
            first.manifest.plan_digest,
            first.manifest.planned,
        ):
            raise ShardSetError(
                f"{s.name} was cut from another plan than {first.name} (plan digest "
                f"{s.manifest.plan_digest[:12]} vs {first.manifest.plan_digest[:12]})"
            )
        if s.manifest.floors != first.manifest.floors:
            raise ShardSetError(f"{s.name} applied other noise floors than {first.name}")
    owner: dict[CaseKey, Shard] = {}
    for s in shards:
        for key in s.manifest.cases:
            if key in owner:
                raise ShardSetError(
                    f"{key.label()} was measured by {owner[key].name} and {s.name}"
                )
            owner[key] = s
        ran = {k for r in s.rounds for k in (*r.base, *r.head)}
        foreign = sorted(ran - set(s.manifest.cases), key=natural_key)
        if foreign:
            raise ShardSetError(
                f"{s.name} holds samples of cases not its own: "
                + ", ".join(k.label() for k in foreign[:5])
            )
    left = sorted(set(first.manifest.planned) - set(owner), key=natural_key)
    if left:
        raise ShardSetError(
            f"planned case(s) no shard measured: {', '.join(k.label() for k in left[:5])}"
        )
    extra = sorted(set(owner) - set(first.manifest.planned), key=natural_key)
    if extra:
        raise ShardSetError(
            f"case(s) measured but not planned: {', '.join(k.label() for k in extra[:5])}"
        )


def check_fingerprints(shards: Sequence[Shard], ignore: tuple[str, ...]) -> EnvironmentCheck:
    """Every fingerprint against the first shard's start, in the comparability keys, and one
    machine name; the run's environment check (first shard's start, last shard's end)."""
    first = shards[0]
    reference = comparable(first.manifest.fingerprint_start)
    for s in shards:
        for when, fp in (
            ("start", s.manifest.fingerprint_start),
            ("end", s.manifest.fingerprint_end),
        ):
            check = EnvironmentCheck(reference, comparable(fp), ignore)
            if check.differing_keys:
                found = "; ".join(
                    f"{k} ({first.name}: {check.base.get(k)!r}, {s.name}: {check.head.get(k)!r})"
                    for k in check.differing_keys
                )
                raise ShardSetError(
                    f"{s.name} ran on a machine that differs from {first.name}'s (fingerprint at "
                    f"its {when}) in a comparability key: {found}; shards must run on identical "
                    "runners of one machine class"
                )
    for s in shards[1:]:
        if s.manifest.machine != first.manifest.machine:
            raise ShardSetError(
                f"{s.name} measured as machine {s.manifest.machine!r}, {first.name} as "
                f"{first.manifest.machine!r}"
            )
    return EnvironmentCheck(
        with_asv_environments(reference, _environments(shards, "base")),
        with_asv_environments(comparable(shards[-1].manifest.fingerprint_end),
                              _environments(shards, "head")),
        ignore,
    )  # fmt: skip


def _environments(shards: Sequence[Shard], side: str) -> tuple[str, ...]:
    """The asv environment(s) ``side`` measured in: one name when every shard's runs of it
    used the same, else each shard's (``shard K/N: name``). A shard compares its cases
    within its own runs, so runners whose environments are named differently merge; a
    shard whose base and head differ makes the merged sides differ too."""
    per_shard = [
        (
            f"shard {s.manifest.shard}/{s.manifest.of}",
            ", ".join(s.manifest.environments.get(side, ())),
        )
        for s in shards
    ]
    names = {env for _, env in per_shard}
    if len(names) <= 1:
        return tuple(names)
    return ("; ".join(f"{shard}: {env or 'unknown'}" for shard, env in per_shard),)


def failed_parity(shards: Sequence[Shard]) -> Shard | None:
    """The first shard whose parity did not pass (its verdict is the run's), else None."""
    return next((s for s in shards if s.manifest.parity.status is not ParityStatus.PASSED), None)


def merged_units(shards: Sequence[Shard]) -> dict[str, str]:
    """Benchmark -> unit over all shards."""
    out: dict[str, str] = {}
    for s in shards:
        out.update(s.manifest.units)
    return out


def runner_of(shards: Sequence[Shard]) -> Mapping[CaseKey, Shard]:
    """Case -> the shard that measured it."""
    return {k: s for s in shards for k in s.manifest.cases}
