"""perfgate.sim.attribution.kernels: callgrind's unnamed functions named by kernel ranges."""

from __future__ import annotations

import pytest

from perfgate.sim.attribution.kernels import (
    CodeRange,
    KernelMap,
    demangle,
    label_for,
    ranges_of,
    read_map,
)

MAIN = "_ZN1k2skB2v7B38c8tJTIeFIjxB2IKSgI4CrvQClQZ6FczSBAA_3dE5ArrayIdLi1E1C7mutable7alignedE"


def _map() -> KernelMap:
    symbols = [
        (MAIN, 0x16C44000, 164),
        ("_ZN7cpython" + MAIN[3:], 0x16C440B0, 284),
        ("__gufunc__._ZN13_3cdynamic_3e32__numba_parfor_gufunc_0x20af6640B2v5", 0x75FF000, 441),
    ]
    unsized = [
        CodeRange(0x7204060, 0, "NRT_decref (Numba runtime)", "sk", "(f8[:],)", "NRT_decref")
    ]
    return KernelMap([*ranges_of(symbols, MAIN, "sk", "(f8[:],)"), *unsized])


@pytest.mark.parametrize(
    ("function", "label"),
    [
        ("0x0000000016c44000", "sk"),  # the kernel's entry
        ("0x0000000016c440a3", "sk"),  # its last byte
        ("0x0000000016c440a4", None),  # between the kernel and its wrapper: padding
        ("0x0000000016c440b0", "sk (Python wrapper)"),
        ("0x00000000075ff010", "sk (gufunc wrapper)"),
        ("0x0000000007204060", "NRT_decref (Numba runtime)"),  # size unknown: its start
        ("0x0000000007204061", None),  # ... and nothing after it
        ("0x0000000000001000", None),  # below every range
    ],
)
def test_an_address_is_named_by_the_range_that_holds_it(function: str, label: str | None) -> None:
    """Callgrind names JIT code by its entry address in object ``???``."""
    assert _map().name_of("???", function) == label


def test_named_functions_and_addresses_in_mapped_objects_keep_their_names() -> None:
    """An address in a shared library is an offset there, never JIT code."""
    kernels = _map()
    assert kernels.name_of("/usr/lib/libffi.so.8", "0x0000000016c44000") is None
    assert kernels.name_of("???", "PyObject_Call") is None


def test_a_kernel_map_survives_its_file() -> None:
    """What the measured process writes is what perfgate reads."""
    import json

    kernels = _map()
    again = read_map(json.dumps(kernels.to_json()))
    assert again.ranges == kernels.ranges and again.kernels == ("sk",)
    with pytest.raises(ValueError, match="kernel map"):
        read_map('{"ranges": [{"start": 1}]}')


def test_symbols_get_labels_that_do_not_depend_on_the_process() -> None:
    """A parfor gufunc's name carries an object's address (it differs between base and
    head): its label does not; an inlined helper's copy is demangled."""
    one = label_for("__numba_parfor_gufunc_0x7f72bc7efa10", MAIN, "k")
    two = label_for("__numba_parfor_gufunc_0x20af6640", MAIN, "k")
    assert one == two == "k (parfor loop)"
    assert label_for("cfunc." + MAIN, MAIN, "k") == "k (C wrapper)"
    assert demangle(MAIN) == "k.sk"
    assert (
        demangle("_ZN8termplan5tasks8geometry10quat_mul_sB2v3E")
        == "termplan.tasks.geometry.quat_mul_s"
    )
    assert demangle("PyObject_Call") == "PyObject_Call"
