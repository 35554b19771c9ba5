"""§9.2 receipt of a pushed Response: the one function an agent's callback calls before it may act.

``verify_push`` rebuilds the signed context from the body it received (recomputing
``payload_sha256``) and the callback URL the agent registered, screens ``v1`` (dp-025), checks ``t``
against its own clock, verifies the signature with the hmac secret(s) OR the Hub's ed25519 keys
(only the pinned ``key_id`` when given), checks the §6 shape, refuses an ``in_reply_to`` the submit
journal never sent (when given one), and only then records the ``jti`` — so a forged request cannot
poison the replay store. Every refusal is a ``VerificationError`` with the TypeScript SDK's reason.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, Union, cast

from . import _keys
from ._files import KeyDirectory, is_expired
from ._shape import check_response, problem_of
from .errors import HubKeysError, VerificationError
from .jcs import canonicalize, sha256_hex
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
    "mint_jti",
    "default_replay_store",
    "urllib_fetch",
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
HeaderInput = Union[Mapping[str, Union[str, Sequence[str]]], Iterable["tuple[str | bytes, str | bytes]"]]


class ReplayStore(Protocol):
    """The §9.2/§9.7 ``jti`` cache."""

    def check_and_record(self, jti: str, expires_at: datetime, now: datetime) -> bool:
        """False when ``jti`` was already seen (a replay); else records it until ``expires_at``."""
        ...


_PRUNE_EVERY_SECONDS = 60.0


class MemoryReplayStore:
    """An in-process ``jti`` cache; live entries are never evicted (that would let a replay through)."""

    def __init__(self) -> None:
        self._expires_at: dict[str, float] = {}
        self._pruned_at = 0.0
        self._lock = threading.Lock()

    def check_and_record(self, jti: str, expires_at: datetime, now: datetime) -> bool:
        now_s = now.timestamp()
        with self._lock:
            if now_s - self._pruned_at >= _PRUNE_EVERY_SECONDS:
                self._pruned_at = now_s
                for key in [k for k, at in self._expires_at.items() if at <= now_s]:
                    del self._expires_at[key]
            seen = self._expires_at.get(jti)
            if seen is not None and seen > now_s:
                return False
            self._expires_at[jti] = expires_at.timestamp()
            return True


class FileReplayStore:
    """A ``jti`` cache in a directory, safe between processes sharing it; the TypeScript SDK's format
    (a file per ``jti`` named by its SHA-256 hex, holding ``{"expires_at_ms": …}``, created
    exclusively so of two racing verifiers exactly one records it)."""

    def __init__(self, directory: str) -> None:
        self._files = KeyDirectory(directory)
        self._pruned_at = 0.0

    def check_and_record(self, jti: str, expires_at: datetime, now: datetime) -> bool:
        now_ms = now.timestamp() * 1000
        self._prune(now_ms)
        content = json.dumps({"expires_at_ms": _ms(expires_at)}, separators=(",", ":"))
        if self._files.create(jti, content):
            return True
        path = self._files.path(jti)
        if not is_expired(self._files.read(path), now_ms):
            return False
        self._files.remove(path, lambda c: not is_expired(c, now_ms))
        return self._files.create(jti, content)

    def _prune(self, now_ms: float) -> None:
        if now_ms - self._pruned_at < _PRUNE_EVERY_SECONDS * 1000:
            return
        self._pruned_at = now_ms
        self._files.ready()
        for name in os.listdir(self._files.directory):
            if len(name) != 64 or any(c not in "0123456789abcdef" for c in name):
                continue
            path = os.path.join(self._files.directory, name)
            if is_expired(self._files.read(path), now_ms):
                self._files.remove(path, lambda c: not is_expired(c, now_ms))


def _ms(at: datetime) -> int:
    return int(round(at.timestamp() * 1000))


class SentJournal(Protocol):
    """What ``verify_push`` needs of a submit journal: whether a message id is one of its submits."""

    def sent(self, message_id: str) -> bool: ...


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # a redirect is answered as its 3xx status: not followed


def urllib_fetch(url: str) -> tuple[int, bytes]:
    """The default ``Fetch``: a GET with ``accept: application/json``, redirects not followed."""
    opener = urllib.request.build_opener(_NoRedirect)
    request = urllib.request.Request(url, headers={"accept": "application/json"})
    try:
        with opener.open(request, timeout=10) as res:
            return int(res.status), bytes(res.read())
    except urllib.error.HTTPError as e:
        return int(e.code), b""


def _origin(url: str) -> str:
    try:
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        host = parts.hostname
        port = parts.port
    except ValueError:
        raise TypeError(f"hub_url is not an absolute URL: {url}") from None
    if scheme not in ("http", "https"):
        raise TypeError("hub_url must be http(s)")
    if not host:
        raise TypeError(f"hub_url is not an absolute URL: {url}")
    if ":" in host:
        host = f"[{host}]"
    default = 443 if scheme == "https" else 80
    return f"{scheme}://{host}" if port is None or port == default else f"{scheme}://{host}:{port}"


def _public_key_from_jwk(jwk: object) -> bytes | None:
    if not isinstance(jwk, Mapping):
        return None
    x = jwk.get("x")
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519" or not isinstance(x, str):
        return None
    if len(x) != 43 or _keys._MAC_BODY.fullmatch(x) is None:
        return None
    return _keys.unb64u(x)


class PublishedKeys:
    """The Hub's ed25519 keys, found through ``/.well-known/ma2h`` → ``signing_keys_url`` (default
    ``/.well-known/ma2h-keys``), cached, and fetched again when no cached key verifies (a rotation).
    Only a keys URL on the Hub's own origin is followed: the keys are the root of trust for every
    answer. Fetch failures raise ``HubKeysError`` (the caller's problem to retry, never a refusal)."""

    def __init__(self, hub_url: str, *, fetch: Fetch | None = None) -> None:
        self.origin = _origin(hub_url)
        self._fetch: Fetch = fetch if fetch is not None else urllib_fetch
        self._keys: list[Ed25519Key] | None = None
        self._keys_url: str | None = None
        self._cond = threading.Condition()
        self._loading = False
        self._generation = 0
        self._error: BaseException | None = None

    def current(self) -> list[Ed25519Key]:
        """The cached keys, fetched on first use."""
        keys = self._keys
        return list(keys) if keys is not None else self.refresh()

    def peek(self) -> list[Ed25519Key] | None:
        """The cached keys without fetching; ``None`` before the first fetch."""
        keys = self._keys
        return None if keys is None else list(keys)

    def refresh(self) -> list[Ed25519Key]:
        """Fetches the keys again; concurrent callers share one fetch."""
        with self._cond:
            if self._loading:
                generation = self._generation
                while self._loading and self._generation == generation:
                    self._cond.wait()
                if self._error is not None:
                    raise self._error
                return list(self._keys or [])
            self._loading = True
        error: BaseException | None = None
        try:
            keys = self._load()
        except BaseException as e:
            error = e
            raise
        finally:
            with self._cond:
                self._loading = False
                self._generation += 1
                self._error = error
                self._cond.notify_all()
        return list(keys)

    def _load(self) -> list[Ed25519Key]:
        if self._keys_url is None:
            self._keys_url = self._discover()
        jwks = self._json(self._keys_url)
        entries = jwks.get("keys")
        if not isinstance(entries, list):
            raise HubKeysError(f'{self._keys_url} is not a JWKS (no "keys" array)')
        keys: list[Ed25519Key] = []
        for jwk in entries:
            public = _public_key_from_jwk(jwk)
            if public is None:
                continue  # anything but an Ed25519 public key is skipped
            kid = cast(Mapping[str, object], jwk).get("kid")
            keys.append(Ed25519Key(public, kid if isinstance(kid, str) else None))
        self._keys = keys
        return keys

    def _discover(self) -> str:
        fallback = f"{self.origin}/.well-known/ma2h-keys"
        doc = self._json(f"{self.origin}/.well-known/ma2h")
        advertised = doc.get("signing_keys_url")
        if advertised is None:
            return fallback
        text = advertised if isinstance(advertised, str) else json.dumps(advertised)
        try:
            origin = _origin(text)
        except TypeError:
            raise HubKeysError(f"signing_keys_url is not an absolute URL: {text}") from None
        if origin != self.origin:
            raise HubKeysError(f"signing_keys_url {text} is not on the Hub's origin {self.origin}: not followed")
        return text

    def _json(self, url: str) -> Mapping[str, object]:
        try:
            status, body = self._fetch(url)
        except Exception as e:
            raise HubKeysError(f"fetching {url} failed: {e}") from e
        if not 200 <= status <= 299:
            raise HubKeysError(f"fetching {url} answered {status}")
        try:
            value = json.loads(body)
        except ValueError as e:
            raise HubKeysError(f"{url} did not answer a JSON object") from e
        if not isinstance(value, dict):
            raise HubKeysError(f"{url} did not answer a JSON object")
        return cast(Mapping[str, object], value)


_hub_keys_cache: dict[tuple[object, str], PublishedKeys] = {}
_hub_keys_lock = threading.Lock()
_process_replay_store: MemoryReplayStore | None = None


def hub_keys_for(
    *, hub_url: str | None, hub_keys: PublishedKeys | None, fetch: Fetch | None
) -> PublishedKeys | None:
    """``hub_keys`` as given, else one shared ``PublishedKeys`` per (fetch, Hub origin)."""
    if hub_keys is not None:
        return hub_keys
    if hub_url is None:
        return None
    fetch_fn: Fetch = fetch if fetch is not None else urllib_fetch
    origin = _origin(hub_url)
    with _hub_keys_lock:
        keys = _hub_keys_cache.get((fetch_fn, origin))
        if keys is None:
            keys = PublishedKeys(origin, fetch=fetch_fn)
            _hub_keys_cache[(fetch_fn, origin)] = keys
        return keys


def default_replay_store() -> MemoryReplayStore:
    """§9.2: one ``jti`` cache for the whole process unless the caller brings its own."""
    global _process_replay_store
    with _hub_keys_lock:
        if _process_replay_store is None:
            _process_replay_store = MemoryReplayStore()
        return _process_replay_store


def _signature_header(headers: HeaderInput) -> str | None:
    """``MA2H-Signature``, case-insensitively; several values joined with ", " as HTTP would."""
    values: list[str] = []
    items: Iterable[tuple[object, object]]
    if isinstance(headers, Mapping):
        items = headers.items()
    elif callable(getattr(headers, "items", None)):
        items = cast(Any, headers).items()  # email.message.Message and friends
    else:
        items = headers
    for name, value in items:
        key = name.decode("latin-1") if isinstance(name, (bytes, bytearray)) else name
        if not isinstance(key, str) or key.lower() != "ma2h-signature" or value is None:
            continue
        if isinstance(value, (bytes, bytearray)):
            values.append(value.decode("latin-1"))
        elif isinstance(value, str):
            values.append(value)
        elif isinstance(value, Sequence):
            values.extend(v.decode("latin-1") if isinstance(v, (bytes, bytearray)) else str(v) for v in value)
    return None if not values else ", ".join(values)


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def parse_json_object(raw: bytes | str) -> dict[str, object] | None:
    """The body as a JSON object, read as ECMAScript ``JSON.parse`` would; ``None`` otherwise."""
    try:
        if isinstance(raw, (bytes, bytearray, memoryview)):
            text = bytes(raw).decode("utf-8")
            if text.startswith("\ufeff"):
                text = text[1:]  # TextDecoder drops a byte-order mark
        else:
            text = raw
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _is_object_or_absent(value: object) -> bool:
    return value is None or isinstance(value, Mapping)


def signing_body(body: object) -> Mapping[str, object] | None:
    """The bound members of a received Response body; ``None`` when it cannot have been signed."""
    if not isinstance(body, Mapping):
        return None
    for name in ("ma2h_version", "in_reply_to", "resolution", "resolution_id"):
        if not isinstance(body.get(name), str):
            return None
    if not _is_object_or_absent(body.get("response")) or not _is_object_or_absent(body.get("state")):
        return None
    return body


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
    ``push_signing.key_id``): a signature by any other key of the Hub is ``unexpected_key``.
    ``journal`` refuses an answer to a message this agent never submitted (``not_sent``).
    ``replay_store`` defaults to one in-memory store per process; ``window_seconds`` to 120.
    """
    if not isinstance(callback_url, str) or callback_url == "":
        raise TypeError("callback_url is required: the URL exactly as registered in callback.url")
    source = _keys.key_source(
        hmac_secret=hmac_secret,
        hub_url=hub_url,
        hub_keys=hub_keys,
        fetch=fetch,
        key_id=key_id,
        hub_use="every other scheme",
    )
    if journal is not None and not callable(getattr(journal, "sent", None)):
        raise TypeError("journal must be a submit journal with sent(message_id) (MemorySubmitJournal, FileSubmitJournal)")
    window = _keys.window_option(window_seconds)
    at = _keys.now_of(now)

    body = parse_json_object(raw_body)
    header = _signature_header(headers)
    bound = signing_body(body)

    def build(jti: str, t: int) -> Mapping[str, str | None] | None:
        return None if bound is None else response_signed_context(bound, callback_url, jti, t)

    def check(keys: Sequence[HmacKey | Ed25519Key]) -> _keys.Check:
        return _keys.check_detached(header, build, keys, at, window)

    # An unreadable body fails the header and window checks like any other, then as a body: no key
    # fetch for what cannot have been signed.
    result = check([]) if body is None else _keys.check_with_keys(source, check)
    if result.reason is not None:
        if result.reason == "signature_mismatch" and body is None:
            raise VerificationError("invalid_body", "the body is not a JSON object")
        raise VerificationError(result.reason)

    problem = problem_of(check_response, body)
    if problem is not None:
        raise VerificationError("invalid_shape", f"the pushed body is not a §6 Response: {problem}")
    response = cast(Response, body)
    if journal is not None and not journal.sent(response["in_reply_to"]):
        raise VerificationError(
            "not_sent", f"{response['in_reply_to']} is not a message this agent's journal submitted"
        )
    store = replay_store if replay_store is not None else default_replay_store()
    assert result.remember_until is not None
    if not store.check_and_record(result.jti, result.remember_until, at):
        raise VerificationError("replayed")
    return response


def payload_sha256(response: object, state: object) -> str:
    """§9.2: hex SHA-256 of JCS ``{"response": …, "state": …}``, an absent member as ``null``."""
    return sha256_hex(canonicalize({"response": response, "state": state}))


def response_signed_context(body: Mapping[str, object], callback_url: str, jti: str, t: int) -> dict[str, str | None]:
    """The §9.2 push ``signed_context`` for a Response body as received (digest recomputed)."""
    detail = body.get("response")
    resolved_at = detail.get("resolved_at") if isinstance(detail, Mapping) else None
    return {
        "ma2h_version": cast(str, body["ma2h_version"]),
        "callback_url": callback_url,
        "id": cast(str, body["in_reply_to"]),
        "in_reply_to": cast(str, body["in_reply_to"]),
        "jti": jti,
        "payload_sha256": payload_sha256(body.get("response"), body.get("state")),
        "resolution": cast(str, body["resolution"]),
        "resolution_id": cast(str, body["resolution_id"]),
        "resolved_at": resolved_at if isinstance(resolved_at, str) else None,
        "t": str(t),
    }


def sign_context(context: Mapping[str, str | None], key: SigningKey) -> str:
    """``v1``: unpadded base64url of the MAC/signature over JCS(context)."""
    return _keys.b64u(_keys.sign_bytes(canonicalize(context), key))


def format_signature_header(t: int, jti: str, v1: str) -> str:
    """``t=<t>,jti=<jti>,v1=<v1>``."""
    return _keys.format_header(t, jti, v1)


def parse_signature_header(value: str) -> SignatureHeader | None:
    """Parses an ``MA2H-Signature`` value (unknown parameters ignored); ``None`` when malformed."""
    parsed = _keys.parse_header(value)
    return None if parsed is None else SignatureHeader(parsed.t, parsed.jti, parsed.v1)


def decode_mac(v1: str) -> bytes | None:
    """§9.2 / dp-025: the bytes of a well-formed ``v1``; ``None`` when ill-formed."""
    return _keys.decode_mac(v1)


def mint_jti() -> str:
    """A fresh ``jti_…`` (128 random bits, Crockford base32 like the Hub's ids)."""
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    n = int.from_bytes(secrets.token_bytes(16), "big")
    return "jti_" + "".join(alphabet[(n >> (5 * i)) & 31] for i in reversed(range(26)))


def sign_response_push(
    response: Mapping[str, object], *, callback_url: str, key: SigningKey, now: datetime, jti: str | None = None
) -> str:
    """Signs a Response as a Hub would push it; returns the ``MA2H-Signature`` header value."""
    t = int(now.timestamp() // 1)
    nonce = jti if jti is not None else mint_jti()
    context = response_signed_context(response, callback_url, nonce, t)
    return format_signature_header(t, nonce, sign_context(context, key))
