"""perfgate.secrets: which variables count as secrets, and redaction."""

from __future__ import annotations

import html
import json
import string
from urllib.parse import quote, quote_plus

import pytest

from perfgate.report.render import md_escape
from perfgate.secrets import child_environment, redact, redact_env, secret_values

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
    applied to URL credentials too. The user name alone is not a secret (``git@github.com``
    must not star out every "git")."""
    assert set(secret_values(SHORT_URL)) == {"u:pw", "pw"}
    assert redact_env("dsn u:pw@h, password pw.", SHORT_URL) == "dsn ***@h, password ***."
    assert redact_env("user u", SHORT_URL) == "user u"
    ssh = {"REPO_URL": "ssh://git@github.com/o/r"}
    assert secret_values(ssh) == () and redact_env("git push", ssh) == "git push"


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
        (SHORT_URL, "u:pw"),
        (SHORT_URL, "pw"),
        ({"DATABASE_URL": "postgres://app:s.3-c!@db/x"}, "s.3-c!"),
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


def test_encodings_of_other_text_are_left_alone() -> None:
    """Encoded text that is not a secret stays as it is."""
    text = "%70%78 &#112;&#120; p\\_x \\*p"
    assert redact_env(text, SHORT_URL) == text
