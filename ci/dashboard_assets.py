"""Make an ``asv publish`` site self-contained: serve its JavaScript/CSS from ``vendor/``.

asv 0.6.6's ``index.html`` loads jQuery, flot, bootstrap, md5 and stupidtable from public
CDNs, so the dashboard renders nothing where those hosts are unreachable (air-gapped runners,
this project's sandbox) and leaks every visit to third parties. This script fetches the same
libraries from the npm registry with ``npm pack`` (pinned versions, each file checked
against a pinned SHA-256), copies them to ``<html>/vendor/`` and rewrites the CDN tags of
``index.html`` to point there. A CDN tag it does not know (a new asv version) is an error,
so the site never silently keeps an external dependency.

Usage: ``python ci/dashboard_assets.py .asv/html [--cache .asv/vendor-cache]``
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Asset:
    """One CDN file replaced by ``member`` of the npm tarball ``package``."""

    cdn: str  # substring of the CDN URL in asv's index.html
    package: str  # npm spec, pinned
    member: str  # path inside the tarball
    local: str  # path under <html>/vendor/
    sha256: str


ASSETS: tuple[Asset, ...] = (
    Asset("jquery-3.3.1.min.js", "jquery@3.3.1", "package/dist/jquery.min.js", "jquery.min.js",
          "160a426ff2894252cd7cebbdd6d6b7da8fcd319c65b70468f10b6690c45d02ef"),
    Asset("flot/0.8.3/jquery.flot.min.js", "flot@0.8.3", "package/jquery.flot.js",
          "jquery.flot.js", "b7b931f273c38b1277b9c6c1f4e05c4ec09885a487bddaf3279e2d7e49a38e12"),
    Asset("flot/0.8.3/jquery.flot.time.min.js", "flot@0.8.3", "package/jquery.flot.time.js",
          "jquery.flot.time.js",
          "a582c832adc7138a6b05aaf61f16ebac274701f1be4afea77e739a1c34b9c41a"),
    Asset("flot/0.8.3/jquery.flot.selection.min.js", "flot@0.8.3",
          "package/jquery.flot.selection.js", "jquery.flot.selection.js",
          "e6c85f6c1ebe4b4da29d8ae238c7c5060283f05f7ef054f6b91817d02c092918"),
    Asset("flot/0.8.3/jquery.flot.categories.min.js", "flot@0.8.3",
          "package/jquery.flot.categories.js", "jquery.flot.categories.js",
          "6e81664b28ea795c734906f4aa15614640a75ac7fbd399a7fb9084040698351a"),
    Asset("jquery.flot.orderBars.js", "flot-orderbars@1.0.0",
          "package/js/jquery.flot.orderBars.js", "jquery.flot.orderBars.js",
          "39735b4f46f96ff4e082572401f47c55a2767b366fd1d1e821e44a8d830a12bf"),
    # cdnjs serves stupidtable 1.0.1; npm only has 1.1.3 (same $.fn.stupidtable API).
    Asset("stupidtable.min.js", "stupid-table-plugin@1.1.3", "package/stupidtable.min.js",
          "stupidtable.min.js",
          "4642380f28ebe9ed7cac251793b281ef8620c4386205d92788f9b12f5cceb4e0"),
    Asset("md5.min.js", "blueimp-md5@2.19.0", "package/js/md5.min.js", "md5.min.js",
          "64d7ded388c562e4bde9e58ce205e5fa01b9734fcd434d496eb7b4fbfe9b927d"),
    Asset("bootstrap.min.js", "bootstrap@3.1.1", "package/dist/js/bootstrap.min.js",
          "bootstrap.min.js", "898d05a17f2cfc5120ddcdba47a885c378c0b466f30f0700e502757e24b403a1"),
    Asset("bootstrap.min.css", "bootstrap@3.1.1", "package/dist/css/bootstrap.min.css",
          "bootstrap.min.css", "e9503448692b738dd260fbd7f7cabf2e11f09b600fa97e6eb3a56eba5b1a7e9b"),
)  # fmt: skip

_TAG = re.compile(r"<(script|link)\b[^>]*?(?:src|href)=\"(https?://[^\"]+)\"[^>]*>(?:</script>)?")


def rewrite_index(html: str) -> str:
    """Replace every external script/link tag by its local copy; unknown ones raise. Pure."""

    def local_tag(match: re.Match[str]) -> str:
        kind, url = match.group(1), match.group(2)
        asset = next((a for a in ASSETS if a.cdn in url), None)
        if asset is None:
            raise ValueError(f"index.html: no local copy of external {kind} {url}")
        if kind == "link":
            return f'<link rel="stylesheet" href="vendor/{asset.local}">'
        return f'<script src="vendor/{asset.local}" onerror="js_load_failure()"></script>'

    out = _TAG.sub(local_tag, html)
    left = _EXTERNAL.search(out)
    if left is not None:  # single quotes, no quotes, protocol-relative: never kept silently
        raise ValueError(f"index.html: external reference left after rewriting: {left.group(0)}")
    return out


#: Any script/link tag whose src/href, quoted or not, still points off-site.
_EXTERNAL = re.compile(
    r"<(?:script|link)\b[^>]*?\b(?:src|href)\s*=\s*[\"']?\s*(?:https?:|//)[^>]*>", re.IGNORECASE
)


def tarball(spec: str, cache: Path) -> Path:
    """The npm tarball of ``spec`` in ``cache`` (``npm pack`` on first use)."""
    name, _, version = spec.rpartition("@")
    path = cache / f"{name}-{version}.tgz"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["npm", "pack", "--silent", "--pack-destination", str(cache), spec],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not path.exists():
            raise RuntimeError(f"npm pack {spec} failed: {done.stderr.strip()}")
    return path


def vendor(asset: Asset, cache: Path, html_dir: Path) -> None:
    """Copy one checked asset into ``<html_dir>/vendor/``."""
    with tarfile.open(tarball(asset.package, cache)) as archive:
        member = archive.extractfile(asset.member)
        if member is None:
            raise ValueError(f"{asset.package}: {asset.member} is not a file")
        content = member.read()
    digest = hashlib.sha256(content).hexdigest()
    if digest != asset.sha256:
        raise ValueError(f"{asset.package}:{asset.member}: sha256 {digest}, expected pinned")
    target = html_dir / "vendor" / asset.local
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)


def main(argv: list[str] | None = None) -> int:
    """Vendor the assets and rewrite index.html; exit 1 with a message on any failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html_dir", type=Path)
    parser.add_argument("--cache", type=Path, default=Path(".asv/vendor-cache"))
    args = parser.parse_args(argv)
    index = args.html_dir / "index.html"
    try:
        rewritten = rewrite_index(index.read_text())
        for asset in ASSETS:
            vendor(asset, args.cache, args.html_dir)
    except (OSError, ValueError, RuntimeError, tarfile.TarError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    tmp = index.with_suffix(".html.tmp")
    tmp.write_text(rewritten)
    tmp.replace(index)
    print(f"vendored {len(ASSETS)} assets into {args.html_dir / 'vendor'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
