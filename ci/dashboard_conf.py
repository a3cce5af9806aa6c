"""Write a copy of ``asv.conf.json`` whose dashboard links point at this repository.

``asv.conf.json`` carries placeholder ``project_url`` / ``show_commit_url`` values, so the
published dashboard would link every commit to a repository that is not ours. This script
writes a copy with both set to the repository's web URL, for ``asv publish --config COPY``.

The URL comes from, in order:

1. ``GITHUB_SERVER_URL`` + ``GITHUB_REPOSITORY`` (both set, as in GitHub Actions; set but
   malformed is an error);
2. ``git remote get-url origin`` run in the config's directory, converted to a web URL:
   ``https://host[:port]/owner/repo[.git]`` (``http://`` keeps its scheme),
   ``[user@]host:owner/repo[.git]`` and ``ssh://[user@]host[:port]/owner/repo[.git]``
   become ``https://host/owner/repo``. Credentials (``user:token@``) are dropped, and no
   message ever repeats a remote URL, so a token can reach neither output nor files;
3. otherwise the placeholders stay and a one-line note on stderr says why (no ``origin``,
   ``origin`` is a local path, or an unrecognised URL).

Where to write the copy: asv ``chdir``s to the directory of the ``--config`` file
(``asv/main.py``), so every relative path in it (``repo``, ``benchmark_dir``, ``env_dir``,
``results_dir``, ``html_dir``, ``conda_environment_file``, and ``.module`` plugins) is
relative to that file. The robust choice, used by ``make dashboard`` and CI, is a dot-file
beside ``asv.conf.json`` (``.asv.conf.dashboard.json``, git-ignored): asv then runs in the
same directory and every key but the two URLs keeps the original's value. Any other
output directory also works: the path keys (and asv's defaults for the absent ones) are
rewritten as absolute paths to the directories the original resolves to; a relative
``.module`` plugin cannot be moved that way and is refused.

Only the standard library is used, so ``asv.conf.json`` must be plain JSON (asv itself would
also accept comments). The copy is written atomically (temporary file + ``os.replace``).

Usage: ``python ci/dashboard_conf.py OUTPUT [--config asv.conf.json]``
Exit status: 0 written (placeholders kept or not), 2 bad input, 1 the copy cannot be written.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: Keys asv resolves against the config file's directory.
PATH_KEYS = (
    "repo",
    "benchmark_dir",
    "env_dir",
    "results_dir",
    "html_dir",
    "conda_environment_file",
)
#: asv's values for the path keys a config leaves out (``asv.config.Config.__init__``).
ASV_PATH_DEFAULTS = {
    "benchmark_dir": "benchmarks",
    "env_dir": "env",
    "results_dir": "results",
    "html_dir": "html",
}
ENV_SOURCE = "GITHUB_SERVER_URL/GITHUB_REPOSITORY"
GIT_SOURCE = "git remote origin"

_SEGMENT = re.compile(r"[A-Za-z0-9_.-]+")
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")
_PORT = re.compile(r"[0-9]{1,5}")
_SSH_SCHEMES = frozenset({"ssh", "git+ssh", "ssh+git", "git"})
_WINDOWS_PATH = re.compile(r"[A-Za-z]:[\\/]")


class ConfigError(Exception):
    """Bad input (config file, arguments or environment); the message names what is wrong."""


class UnrecognisedRemote(ValueError):
    """A remote that is not a web-hosted repository. The message never contains the URL."""


def _web_url(scheme: str, host: str, port: str | None, path: str) -> str:
    """``scheme://host[:port]/owner/repo`` from the parts of a remote; checked, pure."""
    if not _HOST.fullmatch(host):
        raise UnrecognisedRemote("origin has no recognisable host name")
    if port is not None and not _PORT.fullmatch(port):
        raise UnrecognisedRemote("origin has a malformed port")
    path = path.strip("/")
    path = path.removesuffix(".git")
    segments = path.split("/")
    if len(segments) < 2 or any(not _SEGMENT.fullmatch(s) or s in (".", "..") for s in segments):
        raise UnrecognisedRemote("origin's path is not owner/repository")
    netloc = host.lower() if port is None else f"{host.lower()}:{port}"
    return f"{scheme}://{netloc}/{'/'.join(segments)}"


def _split_host_port(hostport: str) -> tuple[str, str | None]:
    """``host[:port]`` -> (host, port or None)."""
    host, colon, port = hostport.partition(":")
    return host, (port if colon else None)


def _split_scp(remote: str) -> tuple[str, str] | None:
    """``[user@]host:path`` -> (host, path), or None when ``remote`` is not scp-like.

    git's rule: scp-like when a colon comes before the first slash. Everything up to the last
    ``@`` before that slash is user information (and dropped).
    """
    first = remote.split("/", 1)[0]
    if ":" not in first:
        return None
    user_end = first.rfind("@")
    rest = remote[user_end + 1 :]
    host, _, path = rest.partition(":")
    return host, path


def is_remote_url(value: str) -> bool:
    """True when ``value`` is a URL or scp-like remote rather than a filesystem path. Pure."""
    if _WINDOWS_PATH.match(value):
        return False
    return "://" in value or _split_scp(value) is not None


def web_url_from_remote(remote: str) -> str:
    """The repository's web URL for a git remote URL, credentials dropped. Pure.

    Raises UnrecognisedRemote (whose message never contains ``remote``) for local paths,
    ``file://`` URLs and anything that is not ``host`` + ``owner/repo``.
    """
    remote = remote.strip()
    if not remote:
        raise UnrecognisedRemote("origin's URL is empty")
    if "://" in remote:
        scheme, _, rest = remote.partition("://")
        scheme = scheme.lower()
        authority, _, path = rest.partition("/")
        hostport = authority.rpartition("@")[2]  # drop user[:token]@
        path = re.split(r"[?#]", path, maxsplit=1)[0]
        if scheme in ("https", "http"):
            host, port = _split_host_port(hostport)
            return _web_url(scheme, host, port, path)
        if scheme in _SSH_SCHEMES:
            host, port = _split_host_port(hostport)  # the ssh port is not the web server's
            if port is not None and not _PORT.fullmatch(port):
                raise UnrecognisedRemote("origin has a malformed port")
            return _web_url("https", host, None, path)
        if scheme == "file":
            raise UnrecognisedRemote("origin is a local path (file:// URL)")
        raise UnrecognisedRemote("origin uses a URL scheme other than https, http or ssh")
    scp = None if _WINDOWS_PATH.match(remote) else _split_scp(remote)
    if scp is None:
        raise UnrecognisedRemote("origin is a local path")
    host, path = scp
    return _web_url("https", host, None, path)


def web_url_from_env(env: Mapping[str, str]) -> str | None:
    """``GITHUB_SERVER_URL/GITHUB_REPOSITORY`` as a web URL; None unless both are set. Pure.

    Raises ConfigError (naming the variables, never their values) when they are set but do
    not form an ``http(s)://host/owner/repo`` URL.
    """
    server = env.get("GITHUB_SERVER_URL", "").strip().rstrip("/")
    repository = env.get("GITHUB_REPOSITORY", "").strip()
    if not server or not repository:
        return None
    malformed = ConfigError(
        f"{ENV_SOURCE} do not form an http(s)://host/owner/repo URL "
        "(expected e.g. https://github.com and owner/repo)"
    )
    if not re.match(r"https?://", server, re.IGNORECASE) or repository.count("/") != 1:
        raise malformed
    try:
        return web_url_from_remote(f"{server}/{repository}")
    except UnrecognisedRemote:
        raise malformed from None


def resolve_web_url(
    env: Mapping[str, str], origin_url: Callable[[], str | None]
) -> tuple[str | None, str]:
    """(web URL, where it came from) or (None, why not); ``origin_url`` is only called when
    the environment does not name the repository. Pure given its arguments.
    """
    url = web_url_from_env(env)
    if url is not None:
        return url, ENV_SOURCE
    remote = origin_url()
    if remote is None:
        return None, "no 'origin' remote (or git unavailable)"
    try:
        return web_url_from_remote(remote), GIT_SOURCE
    except UnrecognisedRemote as exc:
        return None, str(exc)


def dashboard_config(
    conf: Mapping[str, Any], web_url: str | None, source_dir: Path, dest_dir: Path
) -> dict[str, Any]:
    """The config to write to ``dest_dir``: URLs set when known, paths still resolving. Pure.

    ``source_dir`` and ``dest_dir`` are absolute. When they differ, every relative path key
    (and asv's default for each absent one) becomes the absolute path it resolves to from
    ``source_dir``; a remote ``repo`` URL is kept. Raises ConfigError for a non-string path
    key, or a relative ``.module`` plugin that cannot follow the move.
    """
    out = dict(conf)
    if web_url is not None:
        out["project_url"] = web_url
        out["show_commit_url"] = f"{web_url}/commit/"
    if source_dir == dest_dir:
        return out
    for key in PATH_KEYS:
        value = out.get(key, ASV_PATH_DEFAULTS.get(key))
        if value is None:
            continue
        if not isinstance(value, str):
            raise ConfigError(f"'{key}' is not a string")
        if key == "repo" and is_remote_url(value):
            continue
        out[key] = os.path.normpath(source_dir / value)  # an absolute value stays as it is
    plugins = out.get("plugins") or []
    if any(isinstance(p, str) and p.startswith(".") for p in plugins):
        raise ConfigError(
            "a relative '.module' plugin only loads beside the config: write the copy into "
            "the config's directory"
        )
    return out


def render(conf: Mapping[str, Any]) -> str:
    """The JSON text of a config (key order kept). Pure."""
    return json.dumps(conf, indent=4, ensure_ascii=False) + "\n"


def read_config(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; ConfigError naming the file otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level is not a JSON object")
    return data


def git_origin_url(repo_dir: Path) -> str | None:
    """``git remote get-url origin`` in ``repo_dir``; None when there is none (or no git)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo_dir), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    url = done.stdout.strip()
    return url if done.returncode == 0 and url else None


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and
    ``os.replace``: readers see the old file or the new one, never a partial one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Write the dashboard config; see the module docstring for sources and exit codes."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write, e.g. .asv.conf.dashboard.json")
    parser.add_argument("--config", type=Path, default=Path("asv.conf.json"))
    args = parser.parse_args(argv)
    config: Path = args.config.absolute()
    output: Path = args.output.absolute()
    # asv chdirs to dirname(abspath(--config)): symlinked directories resolve, the file not
    source_dir, dest_dir = config.parent.resolve(), output.parent.resolve()
    env = os.environ if env is None else env
    try:
        if output.resolve() == config.resolve():
            raise ConfigError(f"{args.output}: is the source config itself; refusing to overwrite")
        conf = read_config(args.config)
        web_url, source = resolve_web_url(env, lambda: git_origin_url(source_dir))
        try:
            written = dashboard_config(conf, web_url, source_dir, dest_dir)
        except ConfigError as exc:
            raise ConfigError(f"{args.config}: {exc}") from None
    except ConfigError as exc:
        print(f"dashboard_conf: error: {exc}", file=sys.stderr)
        return 2
    try:
        write_atomic(output, render(written))
    except OSError as exc:
        print(
            f"dashboard_conf: error: {args.output}: cannot be written ({exc.strerror})",
            file=sys.stderr,
        )
        return 1
    if web_url is None:
        print(
            f"dashboard_conf: note: {source}; {args.output} keeps the placeholder links of "
            f"{args.config}",
            file=sys.stderr,
        )
    else:
        print(f"dashboard_conf: {args.output} links commits to {web_url}/commit/ ({source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
