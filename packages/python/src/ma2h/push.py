"""§9.2 receipt of a pushed Response: the one function an agent's callback calls before it may act.

``verify_push`` rebuilds the signed context from the body it received (recomputing
``payload_sha256``) and the callback URL the agent registered, screens ``v1`` (dp-025), checks ``t``
against its own clock, verifies the signature with the hmac secret(s) OR the Hub's ed25519 keys
(only the pinned ``key_id`` when given), checks the §6 shape, refuses an ``in_reply_to`` the submit
journal never sent (when given one), and only then records the ``jti`` — so a forged request cannot
poison the replay store. Every refusal is a ``VerificationError`` with the TypeScript SDK's reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, Union

from .response import Response

__all__ = [
    "DEFAULT_WINDOW_SECONDS",
    "HmacKey",
    "Ed25519Key",
    "Ed25519SigningKey",
    "VerificationKey",
    "SigningKey",
    "SignatureHeader",
    "Fetch",
    "ReplayStore",
    "MemoryReplayStore",
    "FileReplayStore",
    "SentJournal",
    "PublishedKeys",
    "HeaderInput",
    "verify_push",
    "payload_sha256",
    "response_signed_context",
    "sign_context",
    "format_signature_header",
    "parse_signature_header",
    "decode_mac",
    "sign_response_push",
]

DEFAULT_WINDOW_SECONDS = 120


@dataclass(frozen=True)
class HmacKey:
    """An hmac-sha256 secret exactly as registered (its UTF-8 bytes are the key)."""

    secret: str


@dataclass(frozen=True)
class Ed25519Key:
    """A Hub ed25519 public key (32 raw bytes) and its published ``kid``."""

    public_key: bytes
    kid: str | None = None


@dataclass(frozen=True)
class Ed25519SigningKey:
    """An ed25519 private key (32-byte seed): for signing in tests and tools, never on an agent."""

    private_key: bytes


VerificationKey = Union[HmacKey, Ed25519Key]
SigningKey = Union[HmacKey, Ed25519SigningKey]


@dataclass(frozen=True)
class SignatureHeader:
    """A parsed ``MA2H-Signature`` value."""

    t: int
    jti: str
    v1: str


#: ``fetch(url) -> (status, body bytes)``; raise ``OSError`` when there is no HTTP answer. It must
#: not follow redirects.
Fetch = Callable[[str], "tuple[int, bytes]"]

#: Headers as a mapping (values a string or several), or a list of ``(name, value)`` pairs
#: (WSGI ``environ``-derived dicts, ASGI's decoded pairs).
HeaderInput = Union[Mapping[str, Union[str, Sequence[str]]], Iterable["tuple[str, str]"]]


class ReplayStore(Protocol):
    """The §9.2/§9.7 ``jti`` cache."""

    def check_and_record(self, jti: str, expires_at: datetime, now: datetime) -> bool:
        """False when ``jti`` was already seen (a replay); else records it until ``expires_at``."""
        ...


class MemoryReplayStore:
    """An in-process ``jti`` cache; live entries are never evicted (that would let a replay through)."""

    def check_and_record(self, jti: str, expires_at: datetime, now: datetime) -> bool:
        raise NotImplementedError


class FileReplayStore:
    """A ``jti`` cache in a directory, shared between processes; the TypeScript SDK's format."""

    def __init__(self, directory: str) -> None:
        raise NotImplementedError

    def check_and_record(self, jti: str, expires_at: datetime, now: datetime) -> bool:
        raise NotImplementedError


class SentJournal(Protocol):
    """What ``verify_push`` needs of a submit journal: whether a message id is one of its submits."""

    def sent(self, message_id: str) -> bool: ...


class PublishedKeys:
    """The Hub's ed25519 keys, found through ``/.well-known/ma2h`` → ``signing_keys_url`` (default
    ``/.well-known/ma2h-keys``), cached, and fetched again when no cached key verifies. Only a keys
    URL on the Hub's own origin is followed. Fetch failures raise ``HubKeysError``."""

    def __init__(self, hub_url: str, *, fetch: Fetch | None = None) -> None:
        raise NotImplementedError

    def current(self) -> list[Ed25519Key]:
        """The cached keys, fetched on first use."""
        raise NotImplementedError

    def peek(self) -> list[Ed25519Key] | None:
        """The cached keys without fetching; ``None`` before the first fetch."""
        raise NotImplementedError

    def refresh(self) -> list[Ed25519Key]:
        """Fetches the keys again (concurrent callers share one fetch)."""
        raise NotImplementedError


def verify_push(
    headers: HeaderInput,
    raw_body: bytes | str,
    *,
    callback_url: str,
    hmac_secret: str | Sequence[str] | None = None,
    hub_url: str | None = None,
    hub_keys: PublishedKeys | None = None,
    key_id: str | Sequence[str] | None = None,
    journal: SentJournal | None = None,
    replay_store: ReplayStore | None = None,
    window_seconds: float | None = None,
    now: Callable[[], datetime] | None = None,
    fetch: Fetch | None = None,
) -> Response:
    """Verifies a pushed Response; raises ``VerificationError`` when it must not be acted on.

    Give ``hmac_secret`` (several during a rotation) OR ``hub_url``/``hub_keys`` — never both
    (``TypeError``). ``key_id`` pins the account's push key(s) (``GET /v1/agents/me`` →
    ``push_signing.key_id``). ``replay_store`` defaults to one in-memory store per process.
    """
    raise NotImplementedError


def payload_sha256(response: object, state: object) -> str:
    """§9.2: hex SHA-256 of JCS ``{"response": …, "state": …}``, an absent member as ``null``."""
    raise NotImplementedError


def response_signed_context(body: Mapping[str, object], callback_url: str, jti: str, t: int) -> dict[str, str | None]:
    """The §9.2 push ``signed_context`` for a Response body as received."""
    raise NotImplementedError


def sign_context(context: Mapping[str, str | None], key: SigningKey) -> str:
    """``v1``: unpadded base64url of the MAC/signature over JCS(context)."""
    raise NotImplementedError


def format_signature_header(t: int, jti: str, v1: str) -> str:
    """``t=<t>,jti=<jti>,v1=<v1>``."""
    raise NotImplementedError


def parse_signature_header(value: str) -> SignatureHeader | None:
    """Parses an ``MA2H-Signature`` value; ``None`` when malformed."""
    raise NotImplementedError


def decode_mac(v1: str) -> bytes | None:
    """§9.2 / dp-025: the bytes of a well-formed ``v1``; ``None`` when ill-formed."""
    raise NotImplementedError


def sign_response_push(
    response: Mapping[str, object], *, callback_url: str, key: SigningKey, now: datetime, jti: str | None = None
) -> str:
    """Signs a Response as a Hub would push it; returns the ``MA2H-Signature`` header value."""
    raise NotImplementedError
