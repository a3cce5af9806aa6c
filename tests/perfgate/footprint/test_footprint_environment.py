"""perfgate.footprint.environment: digests per part, never the values themselves."""

from __future__ import annotations

import json

from perfgate.footprint.environment import cpu, differing, environment, normalised

CPUINFO = "processor: 0\nmodel name: AMD EPYC\nflags: sse avx2 fma\n\nprocessor: 1\nflags: x\n"


def test_each_part_is_a_digest_and_a_secret_value_never_appears() -> None:
    env = {"PATH": "/bin", "API_TOKEN": "ghp_s3cr3tvalue"}
    found = environment(env, "3.19.0", CPUINFO, ["numpy==2.4.6"])
    assert set(found) == {"interpreter", "distributions", "valgrind", "cpu", "variables"}
    assert "s3cr3t" not in json.dumps(found) and all(len(v) == 16 for v in found.values())
    other = environment(env, "3.19.0", CPUINFO, ["numpy==2.4.7"])
    assert differing(found, other) == ["distributions"]
    assert differing(found, {**found, "cpu": "x"}) == ["cpu"]
    assert differing(found, {}) == sorted(found)


def test_the_first_processors_model_and_sorted_flags() -> None:
    assert cpu(CPUINFO) == {"model name": "AMD EPYC", "flags": "avx2 fma sse"}


def test_run_paths_are_named_by_placeholders_so_two_runs_digest_alike() -> None:
    first = normalised(
        {"PYTHONPATH": "/r/1/exports/aa/src:/r/1/exports/aa"}, {"/r/1/exports/aa": "<export>"}
    )
    again = normalised(
        {"PYTHONPATH": "/r/2/exports/bb/src:/r/2/exports/bb"}, {"/r/2/exports/bb": "<export>"}
    )
    assert first == again == {"PYTHONPATH": "<export>/src:<export>"}
