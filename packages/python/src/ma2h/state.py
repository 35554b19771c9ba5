"""§9.3 sealed ``state``: the Hub round-trips ``state`` verbatim but it comes back UNTRUSTED, so the
agent seals it with a key only its runtime holds (e.g. ``MA2H_STATE_KEY``) and refuses anything that
does not open. Byte-compatible with ``@ma2h/agent``'s ``sealState``/``openState``:

``{"ma2h_sealed": "v1", "salt": b64u(16 B), "iv": b64u(12 B), "ct": b64u(…), "tag": b64u(16 B)}`` —
AES-256-GCM under HKDF-SHA256(key, salt, info "ma2h-state v1"), the UTF-8 JSON of the value as
plaintext and "ma2h-state v1" as associated data; b64u is unpadded base64url. AES-GCM needs the
``cryptography`` package (``pip install ma2h[ed25519]``); without it both functions raise
``MissingDependencyError``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from typing import Any

from ._keys import b64u, unb64u
from .errors import MissingDependencyError, StateIntegrityError

__all__ = ["seal_state", "open_state"]


_VERSION = "v1"
_INFO = b"ma2h-state v1"
_MIN_KEY_BYTES = 32
_SALT_BYTES = 16
_IV_BYTES = 12
_TAG_BYTES = 16
_B64U = re.compile(r"[A-Za-z0-9_-]*")


def _aesgcm() -> Any:
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError as e:
        raise MissingDependencyError(
            'sealed state (AES-256-GCM) needs the "cryptography" package: pip install "ma2h[ed25519]"'
        ) from e
    return AESGCM


def _key_material(key: str | bytes) -> bytes:
    if isinstance(key, str):
        raw = key.encode("utf-8")
    elif isinstance(key, (bytes, bytearray, memoryview)):
        raw = bytes(key)
    else:
        raise TypeError("the state key must be a string or bytes")
    if len(raw) < _MIN_KEY_BYTES:
        raise TypeError(
            f"the state key is {len(raw)} bytes; at least {_MIN_KEY_BYTES} are required (a short key can be guessed, §9.3)"
        )
    return raw


def _derive(key: bytes, salt: bytes) -> bytes:
    """RFC 5869 HKDF-SHA256 to 32 bytes, info "ma2h-state v1"."""
    prk = hmac.new(salt, key, hashlib.sha256).digest()
    return hmac.new(prk, _INFO + b"\x01", hashlib.sha256).digest()


def _js_json(value: object) -> str:
    """``JSON.stringify`` of a JSON value (compact, non-ASCII as is); what the TS SDK seals."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as e:
        raise TypeError("the state value must be JSON-serializable") from e


def seal_state(value: object, key: str | bytes) -> dict[str, str]:
    """Seals any JSON value into a ``state`` object only the holder of ``key`` (≥ 32 bytes) can open.

    A fresh random salt per blob means a fresh AES key per blob, so nonce reuse cannot arise however
    many blobs one key seals."""
    raw_key = _key_material(key)
    plaintext = _js_json(value).encode("utf-8")
    aesgcm = _aesgcm()
    salt = os.urandom(_SALT_BYTES)
    iv = os.urandom(_IV_BYTES)
    sealed = bytes(aesgcm(_derive(raw_key, salt)).encrypt(iv, plaintext, _INFO))
    ct, tag = sealed[:-_TAG_BYTES], sealed[-_TAG_BYTES:]
    return {"ma2h_sealed": _VERSION, "salt": b64u(salt), "iv": b64u(iv), "ct": b64u(ct), "tag": b64u(tag)}


def _part(value: object, length: int | None = None) -> bytes:
    """Strict unpadded base64url (one encoding per byte string) of an exact length, else not sealed."""
    if not isinstance(value, str) or _B64U.fullmatch(value) is None or len(value) % 4 == 1:
        raise StateIntegrityError()
    raw = unb64u(value)
    if length is not None and len(raw) != length:
        raise StateIntegrityError()
    if b64u(raw) != value:
        raise StateIntegrityError()
    return raw


def open_state(blob: object, key: str | bytes) -> object:
    """Opens a blob made by ``seal_state`` (either SDK's) with the same key.

    Anything that does not open — a tampered part, another key, an unknown version, not a sealed
    blob — is one ``StateIntegrityError`` that says no more (never the key, never the content)."""
    raw_key = _key_material(key)
    if not isinstance(blob, dict) or blob.get("ma2h_sealed") != _VERSION:
        raise StateIntegrityError()
    salt = _part(blob.get("salt"), _SALT_BYTES)
    iv = _part(blob.get("iv"), _IV_BYTES)
    tag = _part(blob.get("tag"), _TAG_BYTES)
    ct = _part(blob.get("ct"))
    aesgcm = _aesgcm()
    try:
        plaintext = bytes(aesgcm(_derive(raw_key, salt)).decrypt(iv, ct + tag, _INFO))
        return json.loads(plaintext.decode("utf-8"))
    except Exception:
        raise StateIntegrityError() from None
