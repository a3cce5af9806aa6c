"""perfgate.secrets: which variables count as secrets, and redaction."""

from __future__ import annotations

import base64
import html
import json
import string
import sys
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from perfgate.markdown import md_escape
from perfgate.process import run_process
from perfgate.secrets import (
    child_environment,
    credential_values,
    redact,
    redact_env,
    secret_values,
)
from perfgate.sim import callgrind, harness

ENV = {
    "GITHUB_TOKEN": "ghp_abcdefghijklmnop",
    "ACTIONS_RUNTIME_TOKEN": "eyJ0eXAiOiJKV1QiLCJhbGciOi",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG",
    "OPENAI_API_KEY": "sk-0123456789",
    "DB_PASSWORD": "hunter2hunter2",
    "SKIP_TOKEN_CHECK": "1",
    "HOME": "/home/runner",
    "GITHUB_REPOSITORY": "owner/name",
}


def test_secret_values_are_the_long_values_of_secret_names() -> None:
    """Short values ('1') are not redacted (they would star out every digit), longest first."""
    values = secret_values(ENV)
    assert set(values) == {
        ENV[k]
        for k in (
            "GITHUB_TOKEN",
            "ACTIONS_RUNTIME_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "OPENAI_API_KEY",
            "DB_PASSWORD",
        )
    }
    assert [len(v) for v in values] == sorted((len(v) for v in values), reverse=True)


def test_child_environment_is_an_allow_list() -> None:
    assert child_environment(ENV) == {"HOME": "/home/runner"}


@pytest.mark.subprocess
def test_a_version_exported_around_the_gate_reaches_no_child(tmp_path: Path) -> None:
    """The variable is the harness's to set for its measured process: exported by hand
    around the gate, it would reach asv's process (every ``PERFGATE_`` name is allowed
    there) and be digested into the sim families' versions in place of the installed
    valgrind. The gate's children never inherit it; the other ``PERFGATE_`` names they do."""
    given = {callgrind.VERSION_VARIABLE: "9.9.9", "PERFGATE_BENCH": "[]", "HOME": "/h"}
    assert child_environment(given) == {"PERFGATE_BENCH": "[]", "HOME": "/h"}
    show = "import os; print(sorted(k for k in os.environ if k.startswith('PERFGATE_')))"
    done = run_process([sys.executable, "-c", show], tmp_path, given, 60.0)
    seen = done.tail.strip()
    assert done.returncode == 0 and "'PERFGATE_BENCH'" in seen
    assert callgrind.VERSION_VARIABLE not in seen
    measured = harness.measured_environment(given, {}, "3.19.0")
    assert measured[callgrind.VERSION_VARIABLE] == "3.19.0"  # the harness's own, still


def test_redact() -> None:
    text = f"token={ENV['GITHUB_TOKEN']} key={ENV['OPENAI_API_KEY']} n=1"
    assert redact(text, secret_values(ENV)) == "token=*** key=*** n=1"
    assert redact("a secret b secret", ["secret", ""]) == "a *** b ***"


SECRET = "tok_en*with|all`the[specials]&<kind>'of\"chars#@x y+z/"


@pytest.mark.parametrize(
    "form",
    [
        SECRET,
        md_escape(SECRET),
        html.escape(SECRET),
        html.escape(SECRET, quote=False),
        quote(SECRET),
        quote(SECRET, safe=""),
        quote_plus(SECRET),
        json.dumps(SECRET)[1:-1],
    ],
)
def test_every_form_of_a_secret_is_redacted(form: str) -> None:
    """The report escapes what it shows (``ghp\\_...`` in markdown): every form goes."""
    assert redact_env(f"before {form} after", {"GITHUB_TOKEN": SECRET}) == "before *** after"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GH_PAT", "github_pat_0123456789"),
        ("GPG_PASSPHRASE", "correct horse battery"),
        ("MY_PASSWD", "p4ssw0rd-long"),
        ("SIGNING_KEY", "-----BEGIN KEY-----"),
        ("npm_config_secret", "s3cr3t-value"),
        ("SSH_AUTH_SOCK", "/tmp/ssh-XXXX/agent.42"),
        ("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE"),
        ("AZURE_CLIENT_SECRET", "azure-client-secret"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/home/runner/gcp.json"),
    ],
)
def test_secret_names(name: str, value: str) -> None:
    assert redact_env(f"x {value} y", {name: value}) == "x *** y"
    assert name not in child_environment({name: value})


def test_credentials_in_url_values_are_secrets() -> None:
    env = {"DATABASE_URL": "postgres://app:hunter2%2Fsecret@db.internal:5432/perf"}
    assert redact_env("password hunter2/secret", env) == "password ***"
    assert redact_env("dsn app:hunter2%2Fsecret@db", env) == "dsn ***@db"
    assert "DATABASE_URL" not in child_environment({**env, "PATH": "/bin"})
    token_as_user = {"REMOTE_URL": "https://ghp_tokenasusername@github.com/o/r"}
    assert redact_env("ghp_tokenasusername", token_as_user) == "***"


def test_credentials_in_any_url_of_a_list_are_secrets() -> None:
    """pip reads PIP_EXTRA_INDEX_URL as a list of URLs: a password in the second one is a
    secret too (it reached children and output when only the first URL was parsed)."""
    lists = {
        "PIP_EXTRA_INDEX_URL": "https://pypi.org/simple https://bob:s3cretpassw0rd@pkgs.example/s",
        "MIRRORS_URL": "https://a.example/x,https://ghp_tokenasuser2@b.example/y",
    }
    assert redact_env("pw s3cretpassw0rd", lists) == "pw ***"
    assert redact_env("tok ghp_tokenasuser2", lists) == "tok ***"
    assert child_environment({**lists, "PATH": "/bin"}) == {"PATH": "/bin"}


def test_no_secret_no_change() -> None:
    text = "| a\\_b | 1.00 | https://example.com/x?y=1 |"
    assert redact_env(text, {"HOME": "/home/runner", "GITHUB_API_URL": "https://api.x"}) == text


#: Issue 30 item 2: the probe's short URL credential.
SHORT_URL = {"DATABASE_URL": "postgres://u:pw@h/db"}


def test_url_credentials_are_secrets_at_any_length() -> None:
    """``u:pw`` (4 characters) and ``pw`` stayed in every output: the minimum secret length
    applied to URL credentials too. Short ones are redacted where they stand as a credential
    (issue 37 item 2: everywhere, they wrecked the report). The user name alone is not a
    secret (``git@github.com`` must not star out every "git")."""
    assert secret_values(SHORT_URL) == ()
    assert set(credential_values(SHORT_URL)) == {"u:pw", "pw"}
    assert redact_env("dsn u:pw@h, as x:pw@h, url postgres://u:pw@h/db", SHORT_URL) == (
        "dsn ***@h, as x:***@h, url postgres://***@h/db"
    )
    assert redact_env("user u", SHORT_URL) == "user u"
    ssh = {"REPO_URL": "ssh://git@github.com/o/r"}
    assert secret_values(ssh) == () and redact_env("git push", ssh) == "git push"


#: Issue 37 item 2: the probe's one-character password.
ONE_CHAR = {"DATABASE_URL": "postgres://u:e@h/db"}


def test_a_one_character_password_leaves_other_text_alone() -> None:
    """Every "e" of the report was starred out (``***xit_cod***``); now only the credential
    is, raw or in any encoding, and nothing else."""
    text = "exit_code verdict: every case seen"
    assert redact_env(text, ONE_CHAR) == text
    assert redact_env("connect u:e@h/db", ONE_CHAR) == "connect ***@h/db"
    assert redact_env("connect u%3Ae%40h", ONE_CHAR) == "connect ***%40h"
    assert redact_env("other:e@h", ONE_CHAR) == "other:***@h"


def test_a_long_password_is_redacted_everywhere() -> None:
    """A URL's password of `MIN_SECRET_LENGTH` or more goes wherever it stands."""
    env = {"DATABASE_URL": "postgres://u:hunter2hunter2@h/db"}
    assert redact_env("printed hunter2hunter2 alone", env) == "printed *** alone"


TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ"


@pytest.mark.parametrize(
    "form",
    [
        TOKEN[:13] + "\n" + TOKEN[13:],
        TOKEN[:13] + "\n    " + TOKEN[13:],
        TOKEN[:13] + " " + TOKEN[13:],
        TOKEN[:13] + "\\n" + TOKEN[13:],
        TOKEN[:13] + "%0A" + TOKEN[13:],
        TOKEN[:13] + "&#10;" + TOKEN[13:],
        TOKEN[:13] + "<br>" + TOKEN[13:],
        TOKEN[:5] + "\r\n" + TOKEN[5:20] + "\t" + TOKEN[20:],
    ],
)
def test_a_secret_broken_by_white_space_is_redacted(form: str) -> None:
    """Issue 37 item 3: a token split by a newline inside a benchmark parameter was published
    (the report shows the newline as a space: ``ghp_...ab cdef...``)."""
    assert redact_env(f"before {form} after", {"GITHUB_TOKEN": TOKEN}) == "before *** after"


@pytest.mark.parametrize("prefix", ["", "x", "xy", "xyz"])
@pytest.mark.parametrize("urlsafe", [False, True])
def test_the_base64_form_of_a_secret_is_redacted(prefix: str, urlsafe: bool) -> None:
    """Issue 37 item 3: a token's base64 form was published. Whatever comes before it in
    the encoded bytes (any alignment), the characters that only the token decides go."""
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    encoded = encode(f"{prefix}{TOKEN}!".encode()).decode()
    redacted = redact_env(f"param={encoded}", {"GITHUB_TOKEN": TOKEN})
    assert "***" in redacted
    assert base64.b64encode(TOKEN.encode()).decode()[2:12] not in redacted
    left, _, right = redacted.removeprefix("param=").partition("***")
    assert len(left) <= 4 and len(right) <= 6


def _percent(text: str, case: str) -> str:
    """``text`` with every character %-encoded (its UTF-8 bytes), hex digits in ``case``."""
    encoded = "".join(f"%{b:02X}" for b in text.encode())
    return encoded.lower() if case == "lower" else encoded


def _entities(text: str, kind: str) -> str:
    """``text`` as numeric HTML character references, decimal or hex."""
    if kind == "decimal":
        return "".join(f"&#{ord(c)};" for c in text)
    return "".join(f"&#x{ord(c):x};" for c in text)


def _backslashed(text: str) -> str:
    """``text`` with every ASCII punctuation character backslash-escaped, as CommonMark
    allows and other markdown escapers than perfgate's do."""
    return "".join("\\" + c if c in string.punctuation else c for c in text)


OTHER_FORMS = {
    "%-encoded": lambda s: _percent(s, "upper"),
    "%-encoded, lowercase hex": lambda s: _percent(s, "lower"),
    "decimal entities": lambda s: _entities(s, "decimal"),
    "hex entities": lambda s: _entities(s, "hex"),
    "entities, then escaped": lambda s: html.escape(_entities(s, "decimal")),
    "backslash-escaped markdown": _backslashed,
    "backslash-escaped, then escaped again": lambda s: md_escape(_backslashed(s)),
}


@pytest.mark.parametrize("form", OTHER_FORMS)
@pytest.mark.parametrize(
    ("env", "secret"),
    [
        ({"GITHUB_TOKEN": SECRET}, SECRET),
        ({"DEPLOY_TOKEN": "gh-p.at_0123+x"}, "gh-p.at_0123+x"),
        ({"ODD_TOKEN": "]^-\\tok&en;#"}, "]^-\\tok&en;#"),
    ],
)
def test_every_encoding_of_a_secret_is_redacted(
    env: dict[str, str], secret: str, form: str
) -> None:
    """Fully %-encoded (either case of hex digits), numeric HTML entities (decimal, hex),
    backslash-escaped markdown, and those escaped once more by a report renderer."""
    encoded = OTHER_FORMS[form](secret)
    assert redact_env(f"before {encoded} after", env) == "before *** after"


@pytest.mark.parametrize("form", OTHER_FORMS)
@pytest.mark.parametrize(
    ("env", "before", "secret"),
    [
        (SHORT_URL, "", "u:pw"),
        (SHORT_URL, "x:", "pw"),
        ({"DATABASE_URL": "postgres://app:s.3-c!@db/x"}, "x:", "s.3-c!"),
    ],
)
def test_every_encoding_of_a_short_credential_is_redacted(
    env: dict[str, str], before: str, secret: str, form: str
) -> None:
    """A short URL credential in any encoding, where it stands as a credential (the
    ``user:`` before and the ``@`` after it written in the same encoding): the credential
    goes, what stands around it stays."""
    encode = OTHER_FORMS[form]
    planted = encode(before) + encode(secret) + encode("@") + "h"
    assert redact_env(f"as {planted} now", env) == f"as {encode(before)}***{encode('@')}h now"


def test_encodings_of_other_text_are_left_alone() -> None:
    """Encoded text that is not a secret stays as it is."""
    text = "%70%78 &#112;&#120; p\\_x \\*p"
    assert redact_env(text, SHORT_URL) == text


def test_a_secret_after_a_run_of_backslashes_is_still_redacted() -> None:
    """Runs of backslashes are taken whole (linear time on text of many backslashes): a
    secret right after a run, escaped or not, and a secret with a backslash of its own, are
    still found; the run itself is left alone."""
    env = {"GITHUB_TOKEN": TOKEN, "ODD_TOKEN": "]^-\\\\tok&en;#"}
    assert redact_env("\\\\\\\\" + TOKEN, env) == "\\\\\\\\***"
    assert redact_env("\\\\" * 50 + "x", env) == "\\\\" * 50 + "x"
    assert redact_env("C:\\\\" + md_escape("]^-\\\\tok&en;#") + " end", env) == "C:*** end"
