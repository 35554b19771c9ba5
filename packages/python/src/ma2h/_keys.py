"""Key handling shared by push and directive verification: base64url, MAC/signature over a context,
the detached-signature check, key sources (hmac secrets or the Hub's published keys) and the
optional ``cryptography`` import. Private."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Union

from .errors import MissingDependencyError, VerificationError, VerificationFailure
from .jcs import canonicalize

if TYPE_CHECKING:
    from .push import Ed25519Key, HmacKey, PublishedKeys, SigningKey

DEFAULT_WINDOW_SECONDS = 120
_MAC_BODY = re.compile(r"[A-Za-z0-9_-]*")
_TOKEN_BAD = re.compile(r"[,\s]")
_MIN_MAC_BYTES = 32
_MAX_HEADER_LENGTH = 1024

INSTALL_HINT = 'ed25519 needs the "cryptography" package: pip install "ma2h[ed25519]"'


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64u(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def crypto() -> Any:
    """The ``cryptography`` ed25519 module, or ``MissingDependencyError`` saying how to install it."""
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as e:  # pragma: no cover - exercised in a subprocess test
        raise MissingDependencyError(INSTALL_HINT) from e
    return ed25519


def decode_mac(v1: str) -> bytes | None:
    body = v1.rstrip("=")
    pads = len(v1) - len(body)
    if _MAC_BODY.fullmatch(body) is None or len(body) % 4 == 1:
        return None
    if pads != 0 and pads != (4 - len(body) % 4) % 4:
        return None
    raw = unb64u(body)
    return raw if len(raw) >= _MIN_MAC_BYTES else None


def is_token(s: str) -> bool:
    return len(s) > 0 and _TOKEN_BAD.search(s) is None


@dataclass(frozen=True)
class Parsed:
    t: int
    jti: str
    v1: str


def parse_header(value: str) -> Parsed | None:
    if len(value) > _MAX_HEADER_LENGTH:
        return None
    seen: dict[str, str] = {}
    for raw in value.split(","):
        part = raw.strip()
        eq = part.find("=")
        if eq <= 0:
            return None
        name, val = part[:eq], part[eq + 1 :]
        if name not in ("t", "jti", "v1"):
            continue
        if name in seen or not is_token(val):
            return None
        seen[name] = val
    t, jti, v1 = seen.get("t"), seen.get("jti"), seen.get("v1")
    if t is None or jti is None or v1 is None or re.fullmatch(r"[0-9]+", t) is None:
        return None
    seconds = int(t)
    if seconds > 2**53 - 1:
        return None
    return Parsed(seconds, jti, v1)


def format_header(t: int, jti: str, v1: str) -> str:
    if isinstance(t, bool) or not isinstance(t, int) or t < 0 or t > 2**53 - 1:
        raise TypeError("t must be non-negative unix seconds")
    if not is_token(jti) or not is_token(v1):
        raise TypeError("jti and v1 must be non-empty, without ',' or whitespace")
    return f"t={t},jti={jti},v1={v1}"


def sign_bytes(message: bytes, key: SigningKey) -> bytes:
    from .push import Ed25519SigningKey, HmacKey

    if isinstance(key, HmacKey):
        return hmac.new(key.secret.encode("utf-8"), message, hashlib.sha256).digest()
    if isinstance(key, Ed25519SigningKey):
        private = crypto().Ed25519PrivateKey.from_private_bytes(key.private_key)
        return bytes(private.sign(message))
    raise TypeError("key must be an HmacKey or an Ed25519SigningKey")


def verify_context(context: Mapping[str, str | None], mac: bytes, keys: Sequence[HmacKey | Ed25519Key]) -> bool:
    from .push import HmacKey

    message = canonicalize(context)
    for key in keys:
        if isinstance(key, HmacKey):
            expected = hmac.new(key.secret.encode("utf-8"), message, hashlib.sha256).digest()
            if hmac.compare_digest(mac, expected):
                return True
            continue
        if len(mac) != 64:
            continue
        ed = crypto()
        try:
            ed.Ed25519PublicKey.from_public_bytes(key.public_key).verify(mac, message)
            return True
        except Exception:  # InvalidSignature, or a malformed public key that verifies nothing
            continue
    return False


@dataclass(frozen=True)
class Check:
    """The stateless result: ``reason`` None when it verified (then jti and remember_until are set)."""

    reason: VerificationFailure | None
    jti: str = ""
    remember_until: datetime | None = None


Builder = Callable[[str, int], Union[Mapping[str, Union[str, None]], None]]


def check_detached(
    header: str | None,
    build: Builder,
    keys: Sequence[HmacKey | Ed25519Key],
    now: datetime,
    window_seconds: float | None,
) -> Check:
    """Header, ``v1`` (dp-025), window, context rebuilt from what was received, each key."""
    if header is None or header.strip() == "":
        return Check("missing_header")
    parsed = parse_header(header)
    if parsed is None:
        return Check("malformed_header")
    mac = decode_mac(parsed.v1)
    if mac is None:
        return Check("malformed_mac")
    window_ms = (window_seconds if window_seconds is not None else DEFAULT_WINDOW_SECONDS) * 1000
    now_ms = now.timestamp() * 1000
    if not abs(now_ms - parsed.t * 1000) <= window_ms:
        return Check("outside_window")
    try:
        context = build(parsed.jti, parsed.t)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return Check("signature_mismatch")  # not canonicalizable, so not what was signed
    if context is None:
        return Check("signature_mismatch")
    try:
        ok = verify_context(context, mac, keys)
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        return Check("signature_mismatch")
    until = datetime.fromtimestamp((parsed.t * 1000 + window_ms) / 1000, tz=timezone.utc)
    return Check(None, parsed.jti, until)


@dataclass(frozen=True)
class KeySource:
    fixed: tuple[HmacKey, ...] | None = None
    hub: PublishedKeys | None = None
    key_ids: tuple[str, ...] | None = None


def check_with_keys(source: KeySource, check: Callable[[Sequence[HmacKey | Ed25519Key]], Check]) -> Check:
    """Runs ``check`` with fixed keys or the Hub's (one refetch on a mismatch under cached keys);
    a signature by one of the Hub's keys outside the pinned ``key_ids`` is ``unexpected_key``."""
    if source.fixed is not None:
        return check(source.fixed)
    hub = source.hub
    assert hub is not None
    pinned = source.key_ids

    def usable(keys: Sequence[Ed25519Key]) -> list[Ed25519Key]:
        if pinned is None:
            return list(keys)
        return [k for k in keys if k.kid is not None and k.kid in pinned]

    was_cached = hub.peek() is not None
    keys = hub.current()
    result = check(usable(keys))
    if result.reason == "signature_mismatch" and was_cached:
        keys = hub.refresh()
        result = check(usable(keys))
    if pinned is not None and result.reason == "signature_mismatch" and check(keys).reason is None:
        return Check("unexpected_key")
    return result


def key_ids_option(key_id: str | Sequence[str] | None) -> tuple[str, ...] | None:
    if key_id is None:
        return None
    ids = (key_id,) if isinstance(key_id, str) else tuple(key_id)
    if len(ids) == 0 or any(not isinstance(k, str) or k == "" for k in ids):
        raise TypeError("key_id must be one or more non-empty key ids (GET /v1/agents/me: push_signing.key_id)")
    return ids


def key_source(
    *,
    hmac_secret: str | Sequence[str] | None,
    hub_url: str | None,
    hub_keys: PublishedKeys | None,
    fetch: Any,
    key_id: str | Sequence[str] | None,
    hub_use: str,
) -> KeySource:
    """hmac secret(s) or the Hub's keys, never both."""
    from .push import HmacKey, hub_keys_for

    hub = hub_keys_for(hub_url=hub_url, hub_keys=hub_keys, fetch=fetch)
    ids = key_ids_option(key_id)
    if hmac_secret is not None:
        if hub is not None:
            raise TypeError("give hmac_secret or hub_url/hub_keys, not both: one delivery has one signing scheme")
        if ids is not None:
            raise TypeError("key_id pins one of the Hub's ed25519 keys: it does not apply to hmac_secret")
        secrets = [hmac_secret] if isinstance(hmac_secret, str) else list(hmac_secret)
        if len(secrets) == 0 or any(not isinstance(s, str) or s == "" for s in secrets):
            raise TypeError("hmac_secret must be one or more non-empty secrets")
        return KeySource(fixed=tuple(HmacKey(s) for s in secrets))
    if hub is None:
        raise TypeError(f"give hmac_secret (hmac-sha256) or hub_url/hub_keys ({hub_use})")
    crypto()  # fail early and clearly: ed25519 cannot be checked without cryptography
    return KeySource(hub=hub, key_ids=ids)


def window_option(window_seconds: float | None) -> float | None:
    if window_seconds is None:
        return None
    if isinstance(window_seconds, bool) or not isinstance(window_seconds, (int, float)):
        raise TypeError("window_seconds must be a positive number of seconds")
    if not (window_seconds > 0 and window_seconds != float("inf")):
        raise TypeError("window_seconds must be a positive number of seconds")
    return float(window_seconds)


def now_of(now: Callable[[], datetime] | None) -> datetime:
    value = now() if now is not None else datetime.now(timezone.utc)
    if value.tzinfo is None:
        raise TypeError("now() must return a timezone-aware datetime")
    return value


def fail(reason: VerificationFailure, message: str | None = None) -> VerificationError:
    return VerificationError(reason, message)
