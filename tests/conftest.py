"""Test tiers, their guards, the golden-file option and the shared compiled hot slices.

Markers (registered in pyproject.toml): ``numba`` (compiles or loads Numba kernels; its
optional argument names the kernel family, e.g. ``pytest.mark.numba("g1_walk")``),
``mujoco``, ``subprocess``, ``network`` and ``slow``. ``make test-fast`` runs the tests with
none of them; :mod:`tier_guard` fails a test that compiles, starts a process or reaches
another host without its marker.

Under pytest-xdist (``--dist loadgroup``) each test gets an ``xdist_group``: its numba
family when it has one (so one worker compiles a family's kernels, once), ``network`` for
every network test (the npm installs under ``.cache/`` happen in one worker), otherwise its
own file (module-scoped fixtures are built once). :mod:`numba_cache_lock` makes the shared
Numba cache safe when two workers do need the same kernel.
"""

from __future__ import annotations

from collections.abc import Generator

import golden_check
import hot_slices as slice_cache
import numba_cache_lock
import pytest
import tier_guard


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files the selected tests check (then review the diff)",
    )


def pytest_configure(config: pytest.Config) -> None:
    golden_check.UPDATE = bool(config.getoption("update_golden"))
    numba_cache_lock.install(tier_guard.numba_compile_check)
    tier_guard.install_process_guard()
    tier_guard.install_network_guard()


def _group(item: pytest.Item) -> str:
    family = item.get_closest_marker("numba")
    if family is not None and family.args:
        return f"numba-{family.args[0]}"
    if item.get_closest_marker("network") is not None:
        return "network"
    return item.nodeid.split("::", 1)[0]


#: Fixtures whose first use installs or downloads something (the GitHub OpenAPI descriptions,
#: installed with npm): every test that uses one, directly or through another fixture, gets
#: these markers. The guard alone would miss them wherever an earlier run left the install
#: in place (it sees only what a test actually starts), and a fresh clone would then fail.
FIXTURE_TIERS: dict[str, tuple[str, ...]] = {
    "dotcom_spec": ("network", "subprocess"),
    "ghes_spec": ("network", "subprocess"),
}


def _mark_fixture_tiers(item: pytest.Item) -> None:
    used = set(getattr(item, "fixturenames", ()))
    for fixture, markers in FIXTURE_TIERS.items():
        if fixture in used:
            for name in markers:
                if item.get_closest_marker(name) is None:
                    item.add_marker(getattr(pytest.mark, name))


def pytest_itemcollected(item: pytest.Item) -> None:
    """Markers a test gets from what it uses, then its xdist group (as each test is
    collected, so that both are in place before ``-m`` selects and before xdist's own
    ``pytest_collection_modifyitems`` turns the group into the scheduling suffix)."""
    _mark_fixture_tiers(item)
    if item.config.pluginmanager.hasplugin("xdist"):
        item.add_marker(pytest.mark.xdist_group(_group(item)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    tier_guard.begin(item)
    try:
        return (yield)
    finally:
        tier_guard.end()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    result = yield
    if tier_guard.pending():
        pytest.fail("; ".join(tier_guard.pending()), pytrace=False)
    return result


@pytest.fixture(scope="session")
def hot_slices() -> slice_cache.SliceCache:
    """Compiled hot slices built once per session (:mod:`hot_slices`)."""
    return slice_cache.SESSION
