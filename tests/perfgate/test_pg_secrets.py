"""perfgate.secrets: which variables count as secrets, and redaction."""

from __future__ import annotations

from perfgate.secrets import redact, secret_values, without_secrets

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


def test_without_secrets_drops_every_secret_name() -> None:
    assert without_secrets(ENV) == {"HOME": "/home/runner", "GITHUB_REPOSITORY": "owner/name"}


def test_redact() -> None:
    text = f"token={ENV['GITHUB_TOKEN']} key={ENV['OPENAI_API_KEY']} n=1"
    assert redact(text, secret_values(ENV)) == "token=*** key=*** n=1"
    assert redact("a secret b secret", ["secret", ""]) == "a *** b ***"
