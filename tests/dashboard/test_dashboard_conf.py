"""ci/dashboard_conf.py: the dashboard's asv config links to this repository, secrets never leak,
and the copy resolves every directory exactly as asv.conf.json does."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import asv.config
import pytest

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "ci" / "dashboard_conf.py"
TOKEN = "ghp_SeCrEt0123456789tokenTEXT"  # must never show up anywhere
URL_KEYS = {"project_url", "show_commit_url"}
DIR_KEYS = ("repo", "benchmark_dir", "env_dir", "results_dir", "html_dir")
WIDGET = "https://github.com/acme/widget"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dashboard_conf", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("dashboard_conf", module)
    spec.loader.exec_module(sys.modules["dashboard_conf"])
    return sys.modules["dashboard_conf"]


conf_script = load_script()


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No GitHub Actions variables (CI sets them) and no user/system git config."""
    monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def project(tmp_path: Path, origin: str | None, conf: dict[str, Any] | None = None) -> Path:
    """A git work tree holding the project's asv.conf.json (or ``conf``), with ``origin``."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    if origin is not None:
        git(root, "remote", "add", "origin", origin)
    text = (REPO / "asv.conf.json").read_text() if conf is None else json.dumps(conf)
    (root / "asv.conf.json").write_text(text)
    return root


def run_main(
    capsys: pytest.CaptureFixture[str], root: Path, output: str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    argv = [str(root / output), "--config", str(root / "asv.conf.json")]
    code = conf_script.main(argv, env={} if env is None else env)
    out, err = capsys.readouterr()
    return code, out, err


# --- URL conversion -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "remote",
    [
        "https://github.com/acme/widget",
        "https://github.com/acme/widget.git",
        "https://github.com/acme/widget/",
        "https://GitHub.com/acme/widget.git/",
        "git@github.com:acme/widget.git",
        "git@github.com:acme/widget",
        "github.com:acme/widget.git",
        "ssh://git@github.com/acme/widget.git",
        "ssh://git@github.com/acme/widget",
        "ssh://git@github.com:2222/acme/widget.git",
        "git+ssh://git@github.com/acme/widget.git",
        "  https://github.com/acme/widget.git\n",
    ],
)
def test_remote_forms_give_the_web_url(remote: str) -> None:
    assert conf_script.web_url_from_remote(remote) == WIDGET


@pytest.mark.parametrize(
    ("remote", "expected"),
    [
        (
            "https://ghe.example.com:8443/acme/widget.git",
            "https://ghe.example.com:8443/acme/widget",
        ),
        ("http://git.example.org/acme/widget.git", "http://git.example.org/acme/widget"),
        (
            "git@gitlab.example.com:group/sub/widget.git",
            "https://gitlab.example.com/group/sub/widget",
        ),
        ("https://github.com/acme/my.widget-2_x.git", "https://github.com/acme/my.widget-2_x"),
    ],
)
def test_ports_http_and_nested_groups(remote: str, expected: str) -> None:
    assert conf_script.web_url_from_remote(remote) == expected


@pytest.mark.parametrize(
    "remote",
    [
        f"https://x-access-token:{TOKEN}@github.com/acme/widget.git",
        f"https://{TOKEN}@github.com/acme/widget",
        f"https://user:{TOKEN}@github.com/acme/widget.git",
        f"https://user:p@ss{TOKEN}@github.com/acme/widget.git",  # '@' inside the password
        f"ssh://git:{TOKEN}@github.com/acme/widget.git",
        f"user:{TOKEN}@github.com:acme/widget.git",
    ],
)
def test_credentials_are_dropped(remote: str) -> None:
    url = conf_script.web_url_from_remote(remote)
    assert url == WIDGET
    assert TOKEN not in url


@pytest.mark.parametrize(
    ("remote", "reason"),
    [
        ("/srv/git/widget.git", "local path"),
        ("../widget", "local path"),
        ("widget", "local path"),
        ("file:///srv/git/widget.git", "local path"),
        ("C:\\repos\\widget", "local path"),
        ("C:/repos/widget", "local path"),
        ("", "empty"),
        ("https://github.com/widget", "owner/repository"),
        ("https://github.com/", "owner/repository"),
        ("https://github.com/acme/../widget", "owner/repository"),
        (f"https://tok:{TOKEN}@github.com/only-one", "owner/repository"),
        (f"https://tok:{TOKEN}@/acme/widget", "host"),
        (f"ftp://u:{TOKEN}@example.org/acme/widget", "scheme"),
        (f"https://u:{TOKEN}@github.com:port/acme/widget", "port"),
    ],
)
def test_unrecognised_remotes_are_refused_without_repeating_them(remote: str, reason: str) -> None:
    with pytest.raises(conf_script.UnrecognisedRemote, match=reason) as info:
        conf_script.web_url_from_remote(remote)
    assert TOKEN not in str(info.value)
    assert remote.strip() == "" or remote not in str(info.value)


# --- where the URL comes from -------------------------------------------------------------


def test_github_env_takes_precedence_over_git() -> None:
    env = {"GITHUB_SERVER_URL": "https://ghe.example.com/", "GITHUB_REPOSITORY": "acme/widget"}

    def origin() -> str:
        raise AssertionError("git must not be asked when the environment names the repo")

    url, source = conf_script.resolve_web_url(env, origin)
    assert (url, source) == ("https://ghe.example.com/acme/widget", conf_script.ENV_SOURCE)


@pytest.mark.parametrize(
    "env",
    [
        {"GITHUB_REPOSITORY": "other/repo"},
        {"GITHUB_SERVER_URL": "https://github.com"},
        {"GITHUB_SERVER_URL": "", "GITHUB_REPOSITORY": "other/repo"},
    ],
)
def test_git_origin_is_used_unless_both_variables_are_set(env: dict[str, str]) -> None:
    url, source = conf_script.resolve_web_url(env, lambda: "git@github.com:acme/widget.git")
    assert (url, source) == (WIDGET, conf_script.GIT_SOURCE)


@pytest.mark.parametrize(
    "env",
    [
        {"GITHUB_SERVER_URL": f"ssh://git:{TOKEN}@github.com", "GITHUB_REPOSITORY": "a/b"},
        {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": f"{TOKEN}"},
        {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": f"a/b/{TOKEN}"},
    ],
)
def test_malformed_github_env_is_an_error_that_names_the_variables(env: dict[str, str]) -> None:
    with pytest.raises(conf_script.ConfigError, match="GITHUB_SERVER_URL") as info:
        conf_script.resolve_web_url(env, lambda: None)
    assert TOKEN not in str(info.value)


def test_no_origin_and_a_local_origin_keep_the_placeholders() -> None:
    assert conf_script.resolve_web_url({}, lambda: None) == (
        None,
        "no 'origin' remote (or git unavailable)",
    )
    url, why = conf_script.resolve_web_url({}, lambda: "/srv/git/widget.git")
    assert url is None and "local path" in why


# --- the written config -------------------------------------------------------------------


def test_credentialed_origin_end_to_end_never_leaks_the_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, f"https://x-access-token:{TOKEN}@github.com/acme/widget.git")
    code, out, err = run_main(capsys, root, ".asv.conf.dashboard.json")
    assert code == 0, err
    written = (root / ".asv.conf.dashboard.json").read_text()
    assert json.loads(written)["show_commit_url"] == f"{WIDGET}/commit/"
    assert TOKEN not in written + out + err
    assert f"{WIDGET}/commit/" in out


def test_credentialed_unrecognised_origin_note_never_leaks_the_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, f"https://x-access-token:{TOKEN}@github.com/widget")
    code, out, err = run_main(capsys, root, ".asv.conf.dashboard.json")
    assert code == 0
    assert TOKEN not in out + err + (root / ".asv.conf.dashboard.json").read_text()
    assert "owner/repository" in err


def test_env_wins_over_origin_in_the_written_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "git@github.com:someone/fork.git")
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/widget"}
    code, _, err = run_main(capsys, root, ".asv.conf.dashboard.json", env)
    assert code == 0, err
    written = json.loads((root / ".asv.conf.dashboard.json").read_text())
    assert written["project_url"] == WIDGET
    assert written["show_commit_url"] == f"{WIDGET}/commit/"


def test_beside_the_config_every_other_key_is_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "git@github.com:acme/widget.git")
    original = json.loads((root / "asv.conf.json").read_text())
    code, _, err = run_main(capsys, root, ".asv.conf.dashboard.json")
    assert code == 0, err
    written = json.loads((root / ".asv.conf.dashboard.json").read_text())
    assert list(written) == list(original)  # same keys, same order
    assert {k: v for k, v in written.items() if k not in URL_KEYS} == {
        k: v for k, v in original.items() if k not in URL_KEYS
    }
    assert written["project_url"] == WIDGET != original["project_url"]
    assert written["show_commit_url"] == f"{WIDGET}/commit/"


def test_no_remote_keeps_placeholders_with_a_one_line_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, None)
    code, out, err = run_main(capsys, root, ".asv.conf.dashboard.json")
    assert code == 0
    assert json.loads((root / ".asv.conf.dashboard.json").read_text()) == json.loads(
        (root / "asv.conf.json").read_text()
    )
    assert out == ""
    assert err.count("\n") == 1 and "no 'origin' remote" in err


def test_local_path_origin_is_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, str(tmp_path / "elsewhere.git"))
    code, _, err = run_main(capsys, root, ".asv.conf.dashboard.json")
    assert code == 0
    assert err.count("\n") == 1 and "local path" in err
    assert "elsewhere.git" not in err  # the remote itself is never repeated


def asv_dirs(config: Path) -> dict[str, str]:
    """The absolute directories asv uses for ``config``: it chdirs to the file's directory
    (asv/main.py) and loads it with asv's own loader."""
    cwd = Path.cwd()
    os.chdir(config.parent)
    try:
        conf = asv.config.Config.load(str(config))
        return {key: os.path.realpath(getattr(conf, key)) for key in DIR_KEYS}
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("output", [".asv.conf.dashboard.json", ".asv/asv.conf.dashboard.json"])
def test_asv_resolves_the_copy_to_the_same_directories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    """Beside the config or in a subdirectory: asv sees the same repo, benchmarks, env,
    results and html directories through the copy as through asv.conf.json."""
    root = project(tmp_path, "git@github.com:acme/widget.git")
    code, _, err = run_main(capsys, root, output)
    assert code == 0, err
    expected = asv_dirs(root / "asv.conf.json")
    assert expected["results_dir"] == str((root / ".asv/results").resolve())
    assert asv_dirs(root / output) == expected


def test_relocation_covers_asv_defaults_and_keeps_remote_repos(tmp_path: Path) -> None:
    """Absent path keys (asv's defaults) follow the move; a remote ``repo`` is not a path;
    non-path keys are untouched."""
    src, dest = tmp_path / "src", tmp_path / "dest"
    conf = {"version": 1, "repo": "https://github.com/acme/widget.git", "benchmark_dir": "b"}
    written = conf_script.dashboard_config(conf, None, src, dest)
    assert written == {
        "version": 1,
        "repo": "https://github.com/acme/widget.git",
        "benchmark_dir": str(src / "b"),
        "env_dir": str(src / "env"),
        "results_dir": str(src / "results"),
        "html_dir": str(src / "html"),
    }
    assert conf_script.dashboard_config(conf, None, src, src) == conf  # same dir: untouched


def test_relocation_refuses_what_cannot_follow(tmp_path: Path) -> None:
    src, dest = tmp_path / "src", tmp_path / "dest"
    with pytest.raises(conf_script.ConfigError, match="plugin"):
        conf_script.dashboard_config({"repo": ".", "plugins": [".myplugin"]}, None, src, dest)
    with pytest.raises(conf_script.ConfigError, match="'results_dir' is not a string"):
        conf_script.dashboard_config({"repo": ".", "results_dir": 3}, None, src, dest)


# --- atomic write ---------------------------------------------------------------------------


def test_write_atomic_replaces_through_a_temp_file_in_the_same_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / ".asv.conf.dashboard.json"
    target.write_text("old")
    calls: list[tuple[str, str]] = []
    real_replace = os.replace

    def recording_replace(src: str, dst: str) -> None:
        calls.append((str(src), str(dst)))
        assert Path(src).read_text() == "new", "the temp file is complete before the swap"
        assert target.read_text() == "old", "the target is untouched until the swap"
        real_replace(src, dst)

    monkeypatch.setattr(conf_script.os, "replace", recording_replace)
    conf_script.write_atomic(target, "new")
    assert target.read_text() == "new"
    assert len(calls) == 1
    assert Path(calls[0][0]).parent == tmp_path and calls[0][1] == str(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / ".asv.conf.dashboard.json"
    target.write_text("old")

    def failing_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(conf_script.os, "replace", failing_replace)
    with pytest.raises(OSError, match="No space"):
        conf_script.write_atomic(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_the_temp_file_name_is_git_ignored() -> None:
    """The copy and a temp file left by a killed write never show up as untracked."""
    names = [".asv.conf.dashboard.json", ".asv.conf.dashboard.json.k2j4x9.tmp"]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", *names],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.split() == names, done.stderr


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (
            '{"version": 1, "repo": ".",\n  "project": }',
            "not valid JSON (Expecting value at line 2 ",
        ),
        ('["not", "an", "object"]', "not a JSON object"),
        (b"\xff\xfe{}", "cannot be read"),
    ],
)
def test_bad_config_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes | None, message: str
) -> None:
    config = tmp_path / "broken.conf.json"
    if isinstance(content, bytes):
        config.write_bytes(content)
    elif content is not None:
        config.write_text(content)
    output = tmp_path / "out.json"
    code = conf_script.main([str(output), "--config", str(config)], env={})
    _, err = capsys.readouterr()
    assert code == 2
    assert str(config) in err and message in err
    assert not output.exists()


def test_overwriting_the_source_config_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "git@github.com:acme/widget.git")
    before = (root / "asv.conf.json").read_text()
    code, _, err = run_main(capsys, root, "asv.conf.json")
    assert code == 2 and "refusing to overwrite" in err
    assert (root / "asv.conf.json").read_text() == before


def test_malformed_env_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, None)
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "no-slash"}
    code, _, err = run_main(capsys, root, ".asv.conf.dashboard.json", env)
    assert code == 2 and "GITHUB_SERVER_URL/GITHUB_REPOSITORY" in err
    assert not (root / ".asv.conf.dashboard.json").exists()


def test_command_line_entry_point(tmp_path: Path) -> None:
    """Run as the Makefile and the workflow do: relative paths, cwd = the project."""
    root = project(tmp_path, f"https://{TOKEN}@github.com/acme/widget.git")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), ".asv.conf.dashboard.json"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert TOKEN not in done.stdout + done.stderr
    written = json.loads((root / ".asv.conf.dashboard.json").read_text())
    assert written["project_url"] == WIDGET
