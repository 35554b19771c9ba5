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

__all__ = ["seal_state", "open_state"]


def seal_state(value: object, key: str | bytes) -> dict[str, str]:
    """Seals any JSON value into a ``state`` object only the holder of ``key`` (≥ 32 bytes) can open."""
    raise NotImplementedError


def open_state(blob: object, key: str | bytes) -> object:
    """Opens a blob made by ``seal_state`` (either SDK's); ``StateIntegrityError`` otherwise."""
    raise NotImplementedError
