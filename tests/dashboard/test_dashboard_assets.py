"""ci/dashboard_assets.py: asv's CDN tags become local vendor/ files; unknown ones fail."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import asv
import pytest

REPO = Path(__file__).resolve().parents[2]
ASV_INDEX = Path(asv.__file__).parent / "www" / "index.html"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "dashboard_assets", REPO / "ci/dashboard_assets.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("dashboard_assets", module)  # dataclasses look their module up
    spec.loader.exec_module(sys.modules["dashboard_assets"])
    return sys.modules["dashboard_assets"]


def test_every_external_tag_of_asv_index_is_replaced_by_a_vendor_copy() -> None:
    """After the rewrite, asv's index.html references no http(s) script or stylesheet."""
    assets = load_script()
    original = ASV_INDEX.read_text()
    rewritten = assets.rewrite_index(original)
    assert re.search(r"<(script|link)[^>]+(src|href)=\"https?://", rewritten) is None
    local = set(re.findall(r"(?:src|href)=\"vendor/([^\"]+)\"", rewritten))
    assert local == {a.local for a in assets.ASSETS}
    assert rewritten.count("<script") == original.count("<script")


def test_an_unknown_external_tag_is_an_error() -> None:
    """A CDN file the script does not know (new asv version) fails instead of staying remote."""
    assets = load_script()
    html = '<script src="https://cdn.example.org/new-lib.min.js"></script>'
    with pytest.raises(ValueError, match="new-lib.min.js"):
        assets.rewrite_index(html)


@pytest.mark.parametrize(
    "tag",
    [
        "<script src='https://evil.example/x.js'></script>",
        '<script src="//cdn.example/y.js"></script>',
        "<link rel=stylesheet href=https://cdn.example/z.css>",
    ],
)
def test_an_external_tag_the_rewrite_cannot_parse_is_an_error(tag: str) -> None:
    """Single quotes, no quotes, protocol-relative URLs: refused, never kept silently."""
    assets = load_script()
    with pytest.raises(ValueError, match="external reference left"):
        assets.rewrite_index(f"<html>{tag}</html>")


def test_pinned_manifest_is_consistent() -> None:
    """Every asset has a pinned npm version, a SHA-256 and a unique local name."""
    assets = load_script()
    locals_ = [a.local for a in assets.ASSETS]
    assert len(set(locals_)) == len(locals_)
    for asset in assets.ASSETS:
        assert re.fullmatch(r"[a-z0-9-]+@\d+\.\d+\.\d+", asset.package), asset
        assert re.fullmatch(r"[0-9a-f]{64}", asset.sha256), asset


@pytest.mark.subprocess
@pytest.mark.network
@pytest.mark.slow
def test_dashboard_builds_from_two_commits_and_renders_in_chromium(tmp_path: Path) -> None:
    """ci/check-dashboard.sh: real results of two commits, published, drawn by Chromium."""
    done = subprocess.run(
        [str(REPO / "ci/check-dashboard.sh")],
        env={**os.environ, "DASHBOARD_OUT": str(tmp_path)},
        capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "dashboard OK" in done.stdout
    assert 'class="flot-base"' in (tmp_path / "graph.dom.html").read_text()
    assert (tmp_path / "graph.png").stat().st_size > 10_000
