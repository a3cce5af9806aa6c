"""Keeping secrets out of child processes and out of everything perfgate shows or posts.

The gate runs third-party code whose output may end up in a publicly posted report, and
none of it needs a credential. This module is the one place that knows what a secret is:

- :func:`is_secret_name` and :func:`secret_values`: the values of variables named like
  ``*_PAT``, ``*PASS*``, ``*SECRET*``, ``*TOKEN*``, ``*KEY*``, ``*CREDENTIAL*``,
  ``SSH_AUTH_SOCK``, the cloud credential variables (`CLOUD_PREFIXES`, `CLOUD_NAMES`) and
  the ``user:password`` part of URLs, each `MIN_SECRET_LENGTH` characters or longer;
  :func:`credential_values` the shorter URL credentials, redacted only where they stand as
  one (starring out every ``e`` of a report for the password ``e`` would hide nothing);
- :class:`Redactor` replaces each secret in any text in every form a report can give it:
  raw, markdown-, HTML-, URL-, JSON- and shell-escaped, character by character in any mix
  of escapes, broken by white space, and base64-encoded at any alignment (redact *before*
  cutting text short, or a secret's suffix survives);
- :func:`child_environment` is the allow-list environment of every child process;
- :func:`redacted_output` redacts everything written to stdout and stderr;
- :func:`redact_url` removes credentials from URLs (git remotes) in messages.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
import shlex
import string
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TextIO, cast
from urllib.parse import quote, quote_plus, unquote, urlsplit

from perfgate.markdown import md_escape

REDACTED = "***"
#: ``user:token@`` in a URL (a git remote with credentials).
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")

#: Variable names that hold credentials (GITHUB_TOKEN, GH_PAT, GPG_PASSPHRASE, *_API_KEY...).
SECRET_NAME = re.compile(r"_PAT$|PASS|SECRET|TOKEN|KEY|CREDENTIAL", re.I)
#: Cloud credential variables by prefix: the AWS CLI/SDK variables (AWS_ACCESS_KEY_ID,
#: AWS_SESSION_TOKEN, AWS_PROFILE, AWS_WEB_IDENTITY_TOKEN_FILE...), Azure Identity's
#: EnvironmentCredential (AZURE_CLIENT_ID, AZURE_CLIENT_SECRET, AZURE_USERNAME...), Terraform's
#: Azure provider (ARM_*) and the Google Cloud SDK (CLOUDSDK_*).
CLOUD_PREFIXES = ("AWS_", "AZURE_", "ARM_", "CLOUDSDK_")
#: Single credential variables: Google application default credentials, the ssh and gpg
#: agents, Kubernetes and Docker registry configuration.
CLOUD_NAMES = frozenset(
    {
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_OAUTH_ACCESS_TOKEN",
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "GPG_AGENT_INFO",
        "KUBECONFIG",
        "DOCKER_AUTH_CONFIG",
    }
)
#: Variables whose values may be URLs with ``user:password@`` (DATABASE_URL, PIP_INDEX_URL).
URL_NAME = re.compile(r"(_URL|_URI|_DSN)$", re.I)
#: Values shorter than this are not redacted wherever they appear ("0", "true", the password
#: "e" would otherwise be starred out of every line); real tokens are far longer. A URL's
#: shorter credential is redacted where it stands as one (`credential_values`).
MIN_SECRET_LENGTH = 8

#: What every child process (asv, benchmarks, the parity command, git, pip) may see.
CHILD_NAMES = frozenset(
    {
        *("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "LANG", "LANGUAGE"),
        *("TMPDIR", "TMP", "TEMP", "SOURCE_DATE_EPOCH", "VIRTUAL_ENV", "CONDA_PREFIX"),
        *("CI", "GITHUB_ACTIONS", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"),
        *("MUJOCO_GL", "PYOPENGL_PLATFORM", "SYSTEMROOT", "COMSPEC", "PATHEXT"),
    }
)
#: Prefixes of allowed names: locale, the threading and cache settings of numba, OpenMP,
#: MKL, OpenBLAS and BLIS, asv's and perfgate's own settings, Python's, and pip's (for asv
#: environments). A secret-named or credential-holding variable is refused even here.
CHILD_PREFIXES = (
    *("LC_", "NUMBA_", "OMP_", "GOMP_", "KMP_", "MKL_", "OPENBLAS_", "GOTO_", "BLIS_"),
    *("VECLIB_", "NUMEXPR_", "ASV_", "PERFGATE_", "PYTHON", "PIP_"),
)
#: Allowed by prefix, yet never inherited: a parent sets these for one child itself. The
#: sim harness gives its measured process valgrind's version (`perfgate.sim.callgrind`'s
#: ``VERSION_VARIABLE``); one exported by hand around the gate would reach the asv process,
#: whose suites digest it into their asv versions in place of the valgrind installed.
NOT_INHERITED = frozenset({"PERFGATE_SIM_VALGRIND"})


def is_secret_name(name: str) -> bool:
    """True when a variable called ``name`` holds a credential (see the module docstring)."""
    upper = name.upper()
    return bool(
        SECRET_NAME.search(name) or upper in CLOUD_NAMES or upper.startswith(CLOUD_PREFIXES)
    )


def url_credentials(value: str) -> tuple[str, ...]:
    """The ``user:password`` / ``password`` / ``token`` parts of every URL in ``value`` (raw
    and decoded). A value may hold several URLs separated by white space or commas (pip's
    ``PIP_EXTRA_INDEX_URL`` is such a list): each is looked at, not only the first."""
    passwords, users = _url_parts(value)
    return tuple(passwords | users)


def _url_parts(value: str) -> tuple[set[str], set[str]]:
    """(the ``user:password`` pairs and passwords, the user names that are the credential
    of a URL without a password: ``https://TOKEN@host``) of every URL in ``value``."""
    passwords: set[str] = set()
    users: set[str] = set()
    for word in re.split(r"[\s,]+", value):
        try:
            parts = urlsplit(word.strip())
        except ValueError:
            continue
        userinfo = parts.netloc.rpartition("@")[0]
        user, _, password = userinfo.partition(":")
        if password:
            passwords |= {userinfo, unquote(userinfo), password, unquote(password)}
        elif user:
            users |= {user, unquote(user)}
    return {v for v in passwords if v}, {v for v in users if v}


def _holds_credential(name: str, value: str) -> bool:
    return is_secret_name(name) or bool(_is_url(name, value) and url_credentials(value))


def _is_url(name: str, value: str) -> bool:
    return bool(URL_NAME.search(name)) or "://" in value


def secret_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """The secret values of ``env`` redacted wherever they appear, longest first: the values
    of secret names, a URL's password and ``user:password``, and the user names that are a
    URL's credential, each when `MIN_SECRET_LENGTH` or longer (a user name alone is never
    shorter: the ``git`` of ``git@github.com`` must not go)."""
    values = {v for v in _all_secrets(env) if len(v) >= MIN_SECRET_LENGTH}
    return tuple(sorted(values, key=len, reverse=True))


def credential_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """A URL's ``user:password`` and password shorter than `MIN_SECRET_LENGTH`, longest
    first: redacted only where they stand as a credential (`SecretForms.credential`)."""
    values: set[str] = set()
    for name, value in env.items():
        if _is_url(name, value):
            values |= {v for v in _url_parts(value)[0] if len(v) < MIN_SECRET_LENGTH}
    return tuple(sorted(values, key=len, reverse=True))


def _all_secrets(env: Mapping[str, str]) -> set[str]:
    """Every secret value of ``env`` at any length (the user name of a URL only when it is
    the URL's credential: no password)."""
    values: set[str] = set()
    for name, value in env.items():
        if is_secret_name(name):
            values.add(value)
        if _is_url(name, value):
            passwords, users = _url_parts(value)
            values |= passwords | users
    return {v for v in values if v}


def _markdown_escaped(value: str) -> str:
    """``value`` as the report renderer escapes text (`perfgate.markdown.md_escape`)."""
    return md_escape(value)


def encoded_forms(secret: str) -> set[str]:
    """Every form in which ``secret`` can appear in perfgate's output: raw and as the
    markdown report escapes it, each HTML-escaped (``html.escape`` and jinja2's autoescape),
    URL-encoded (``quote``, ``quote_plus``), JSON-escaped and shell-quoted."""
    forms = {secret, _markdown_escaped(secret)}
    for text in tuple(forms):
        plain = html.escape(text, quote=False)
        forms |= {html.escape(text), plain, plain.replace("'", "&#39;").replace('"', "&#34;")}
    forms |= {quote(secret), quote(secret, safe=""), quote_plus(secret), shlex.quote(secret)}
    forms |= {json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    return {f for f in forms if f}


#: Named character references of the characters HTML escaping names (``&apos;`` too).
_ENTITY_NAMES = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos"}


def _hex(number: int, width: int) -> str:
    """``number`` in hex, ``width`` digits at least, as a pattern of either case."""
    return "".join(c if c.isdigit() else f"[{c}{c.upper()}]" for c in f"{number:0{width}x}")


def _char_pattern(char: str) -> str:
    """Every way one character of a secret can be written in what perfgate shows, each
    character of a secret its own way: itself; %-encoded (its UTF-8 bytes, either case of
    hex, ``%25`` for an encoded ``%``); a numeric character reference (decimal or hex,
    leading zeros, its ``&`` escaped again) or a named one; JSON's ``\\uXXXX``; ``+`` for a
    space; ``@`` with the word joiner the markdown report puts after it. ASCII punctuation
    (the character, or the ``% & # ;`` of an encoding) may come after backslashes: markdown
    escapes (the report writes ``&#103;`` as ``&amp;\\#103;``), JSON's, once or again.

    A run of backslashes is taken whole (a possessive ``*+``, never given back), so text
    of many backslashes costs linear time, not quadratic; a backslash of the secret itself
    is a bounded run (`_BACKSLASHES`)."""
    code = ord(char)
    numeric = f"#(?:0*+{code}|[xX]0*+{_hex(code, 1)})"
    named = f"|{_ENTITY_NAMES[char]}" if char in _ENTITY_NAMES else ""
    encoded = [
        "".join(f"%(?:25)*{_hex(b, 2)}" for b in char.encode()),
        rf"&(?:amp;)*\\*+(?:{numeric}{named})\\*+;",
    ]
    if char == " ":
        encoded.append(r"\+")
    json_escape = [r"\\++u" + _hex(code, 4)] if code < 0x10000 else []
    escaped = rf"\\*+(?:{'|'.join(encoded)})"
    literal = re.escape(char) + ("\u2060?" if char == "@" else "")
    if char == "\\":
        first = _BACKSLASHES
    elif char in string.punctuation:
        first, escaped = rf"\\*+{literal}", escaped
    else:
        first = literal
    return "(?:" + "|".join([first, escaped, *json_escape]) + ")"


#: A backslash of a secret as text shows it: itself, escaped once or again (markdown, JSON);
#: a bounded run, so that a secret's two backslashes in a row each find theirs.
_BACKSLASHES = r"\\{1,8}"

#: Where a match may start: not inside a run of backslashes (at its first one, or at any
#: other character). A match takes a run whole, so trying it again from each backslash of
#: a long run would cost quadratic time.
_RUN_START = r"(?:(?!\\)|(?<!\\))"

#: What may break a secret between two of its characters and still show it: white space
#: (a newline inside a parameter, which the report shows as a space), its backslash escapes
#: (JSON's ``\\n``), %-encoding, character references and ``<br>``; at most 32 of them in a
#: row (an indented continuation line), so that a long run of them costs little.
_GAP = (
    r"(?:\s|\\++[nrt]|%(?:25)*+(?:0[9aAdD]|20)"
    r"|&(?:amp;)*+#(?:0*+(?:9|10|13|32)|[xX]0*+(?:[9aAdD]|20));|<br\s*+/?>){0,32}"
)


def _spelled(secret: str) -> str:
    """The pattern of ``secret`` written character by character in any of the forms of
    `_char_pattern`, white space (`_GAP`) allowed between two characters."""
    return _GAP.join(map(_char_pattern, secret))


def base64_forms(secret: str) -> set[str]:
    """What base64 makes of ``secret`` wherever it stands in the encoded bytes: for each of
    the three alignments, the characters that depend on the secret's bytes alone, in the
    standard and the URL-safe alphabet."""
    raw = secret.encode()
    forms: set[str] = set()
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode()
        start, end = -(-8 * shift // 6), (8 * shift + 8 * len(raw)) // 6
        core = encoded[start:end]
        forms |= {core, core.replace("+", "-").replace("/", "_")}
    return {f for f in forms if len(f) >= MIN_SECRET_LENGTH}


@dataclass(frozen=True)
class SecretForms:
    """How one secret is found: ``pattern`` (its characters written each in any of the
    forms of `_char_pattern`: raw, fully %-encoded, as HTML entities, backslash-escaped...,
    white space allowed between them; or its base64 forms, spelled the same way) and the
    exact forms of `encoded_forms` that it does not cover (shell quoting). The match's
    ``lead`` group (empty but for a password as a credential: its ``:``) is kept."""

    pattern: re.Pattern[str]
    exact: tuple[str, ...]

    @classmethod
    def of(cls, secret: str) -> SecretForms:
        """The forms of ``secret``; the pattern starts with a look-ahead at what any of its
        forms can start with, so the search skips every other position at once."""
        chars = "|".join(map(_spelled, [secret, *sorted(base64_forms(secret))]))
        covered = re.compile(f"(?:{chars})")
        exact = sorted(
            (f for f in encoded_forms(secret) if not covered.fullmatch(f)),
            key=lambda f: (-len(f), f),
        )
        starts = {secret[0], "%", "&", "\\", "+", *(f[0] for f in exact)}
        starts |= {f[0] for f in base64_forms(secret)}
        first = "".join(sorted(re.escape(c) for c in starts))
        return cls(re.compile(f"{_RUN_START}(?=[{first}])(?P<lead>)(?:{chars})"), tuple(exact))

    @classmethod
    def credential(cls, secret: str) -> SecretForms:
        """A short URL credential, found only where it stands as one: followed by ``@``
        (in any form), and a password (no ``:`` of its own) after a ``:``. Its ``:`` stays."""
        lead = "" if ":" in secret else _char_pattern(":")
        at = _char_pattern("@")
        pattern = f"{_RUN_START}(?P<lead>{lead})(?:{_spelled(secret)})(?={_GAP}{at})"
        return cls(re.compile(pattern), ())

    def redact(self, text: str) -> str:
        """``text`` with every form of the secret replaced by `REDACTED`."""
        text = self.pattern.sub(lambda m: m.group("lead") + REDACTED, text)
        for form in self.exact:
            text = text.replace(form, REDACTED)
        return text


@dataclass(frozen=True)
class Redactor:
    """Replaces every form of a set of secrets with ``***``, the longest secret first (the
    ``user:password`` of a URL before its password, which would break it up)."""

    secrets: tuple[SecretForms, ...] = ()

    @classmethod
    def of(cls, secrets: Iterable[str], credentials: Iterable[str] = ()) -> Redactor:
        """A redactor for the given secret values (empty ones are ignored), and for the
        ``credentials`` (short URL credentials) where they stand as such."""
        ordered = sorted({s for s in secrets if s}, key=lambda s: (-len(s), s))
        short = sorted({s for s in credentials if s}, key=lambda s: (-len(s), s))
        forms = [*map(_forms_of, ordered), *map(_credential_forms_of, short)]
        return cls(tuple(forms))

    @classmethod
    def from_env(cls, env: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
        """A redactor for the secrets of ``env`` (and ``extra`` values, e.g. a token)."""
        return cls.of((*secret_values(env), *extra), credential_values(env))

    def text(self, text: str) -> str:
        """``text`` with every form of every secret replaced."""
        for forms in self.secrets:
            text = forms.redact(text)
        return text

    def value(self, value: Any, keep: frozenset[str] = frozenset()) -> Any:
        """A JSON-like value with every string redacted; keys too, except those in ``keep``
        (a document's own field names, which the reader looks up: never data)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                (k if k in keep else self.value(k)): self.value(v, keep) for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(v, keep) for v in value]
        return value


@functools.lru_cache(maxsize=64)
def _forms_of(secret: str) -> SecretForms:
    """`SecretForms.of`, once per secret and process (compiling the pattern of a long
    secret takes a while; redactors are made again and again for the same environment)."""
    return SecretForms.of(secret)


@functools.lru_cache(maxsize=64)
def _credential_forms_of(secret: str) -> SecretForms:
    """`SecretForms.credential`, once per credential and process."""
    return SecretForms.credential(secret)


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every form of every non-empty secret replaced by ``***`` (wherever it
    stands, whatever its length: the caller chose these values)."""
    return Redactor.of(secrets).text(text)


def redact_env(text: str, env: Mapping[str, str]) -> str:
    """``text`` with the values of ``env``'s secrets replaced by ``***``."""
    return Redactor.from_env(env).text(text)


def child_environment(env: Mapping[str, str], passthrough: tuple[str, ...] = ()) -> dict[str, str]:
    """The allow-listed part of ``env`` for a child process (`CHILD_NAMES`, `CHILD_PREFIXES`).

    Secret-named variables and URLs with credentials are dropped even when allowed;
    ``passthrough`` prefixes are kept whatever they hold (the history writer's git needs its
    ``GIT_CONFIG_*`` credentials; nothing else does).
    """
    kept: dict[str, str] = {}
    for name, value in env.items():
        if passthrough and name.startswith(passthrough):
            kept[name] = value
        elif _allowed(name) and not _holds_credential(name, value):
            kept[name] = value
    return kept


def _allowed(name: str) -> bool:
    if name in NOT_INHERITED:
        return False
    return name in CHILD_NAMES or name.startswith(CHILD_PREFIXES)


def redact_url(text: str) -> str:
    """``text`` without ``user:token@`` in URLs, so remotes with credentials never reach a log."""
    return _URL_CREDENTIALS.sub(REDACTED + "@", text)


class RedactingStream:
    """A text stream that redacts every write before passing it on (the CLI wraps stdout and
    stderr in it, so nothing printed, logged or shown in a traceback carries a secret)."""

    def __init__(self, stream: TextIO, redactor: Redactor) -> None:
        self.stream = stream
        self.redactor = redactor

    def write(self, text: str) -> int:
        """Write ``text`` redacted; returns the length of ``text`` (callers count on it)."""
        self.stream.write(self.redactor.text(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        """Write each of ``lines`` redacted."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Flush the wrapped stream."""
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def redacted_output(env: Mapping[str, str]) -> Iterator[Redactor]:
    """Redact the secrets of ``env`` from everything written to stdout and stderr meanwhile."""
    redactor = Redactor.from_env(env)
    out, err = sys.stdout, sys.stderr
    sys.stdout = cast(TextIO, RedactingStream(out, redactor))
    sys.stderr = cast(TextIO, RedactingStream(err, redactor))
    try:
        yield redactor
    finally:
        sys.stdout, sys.stderr = out, err
