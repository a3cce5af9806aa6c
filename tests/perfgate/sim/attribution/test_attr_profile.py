"""perfgate.sim.attribution.profile: callgrind's out-file format to per-function costs."""

from __future__ import annotations

import textwrap

import pytest

from perfgate.sim.attribution.profile import parse

#: written as callgrind 3.19 writes a dump with name and position compression: ``main``
#: calls ``work`` twice (inclusive 300 Ir) and JIT code once; ``work`` recurses once
COMPRESSED = textwrap.dedent(
    """\
    # callgrind format
    version: 1
    creator: callgrind-3.19.0
    desc: Trigger: Client Request: case0001.0
    positions: line
    events: Ir Dr
    summary: 410 51

    ob=(1) /usr/bin/prog
    fl=(1) prog.c
    fn=(1) main
    10 10 1
    +2 5
    cfn=(2) work
    calls=2 40
    * 300 40
    cob=(2) ???
    cfi=(2) ???
    cfn=(3) 0x0000000016c44000
    calls=1 0
    * 140 20
    -1 5

    fn=(2)
    40 250 30
    cfn=(2)
    calls=1 40
    * 50 10
    fi=(3) inlined.h
    +3 0 0

    ob=(2)
    fl=(2)
    fn=(3)
    0 140 20

    totals: 410 51
    """
)


def test_a_compressed_dump_gives_each_function_its_own_cost_and_calls() -> None:
    """Names defined once by id and used by id; relative positions; a ``cob`` that names
    the callee's object for one call only; costs after ``calls=`` are the calls' inclusive
    cost, the rest the function's own."""
    profile = parse(COMPRESSED)
    main, work = ("/usr/bin/prog", "main"), ("/usr/bin/prog", "work")
    jit = ("???", "0x0000000016c44000")
    assert profile.trigger == "case0001.0" and profile.events == ("Ir", "Dr")
    assert profile.own == {main: [20, 1], work: [250, 30], jit: [140, 20]}
    assert profile.calls[(main, work)].count == 2
    assert profile.calls[(main, work)].cost == [300, 40]
    assert profile.calls[(main, jit)].cost == [140, 20]
    assert profile.calls[(work, work)].cost == [50, 10]
    assert profile.total() == [410, 51]


def test_an_id_used_before_it_is_defined_and_a_bad_count_name_their_line() -> None:
    """A damaged dump is refused with what is wrong, not summed wrongly."""
    with pytest.raises(ValueError, match=r"fn=\(7\) used before"):
        parse("events: Ir\nfn=(7)\n1 2\n")
    with pytest.raises(ValueError, match="line 3"):
        parse("events: Ir\nfn=f\n1 2 3\n")
    with pytest.raises(ValueError, match="without an events"):
        parse("fn=f\n")
    with pytest.raises(ValueError, match="functions sum to"):
        parse(COMPRESSED.replace("totals: 410 51", "totals: 411 51"))
