"""One file per key in a directory, named by the key's SHA-256 hex and created exclusively, so the
file system is the lock between processes. The layout of ``@ma2h/agent``'s file stores. Private."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Callable


class KeyDirectory:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._ready = False

    def path(self, key: str) -> str:
        return os.path.join(self.directory, hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest())

    def ready(self) -> None:
        """Created on demand, private to this user (0700)."""
        if not self._ready:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            self._ready = True

    def create(self, key: str, content: str) -> bool:
        """Creates the file exclusively with ``content``; False when it exists already."""
        self.ready()
        try:
            fd = os.open(self.path(key), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(content)
        return True

    def read(self, path: str) -> str | None:
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def remove(self, path: str, keep: Callable[[str | None], bool] = lambda _: False) -> bool:
        """Removes a file without racing a writer: renamed away first (atomic), linked back when
        ``keep(content)`` says another process wrote it afresh. Returns whether it was removed."""
        grave = f"{path}.{secrets.token_hex(6)}.del"
        try:
            os.rename(path, grave)
        except FileNotFoundError:
            return False
        kept = keep(self.read(grave))
        try:
            if kept:
                os.link(grave, path)
        except FileExistsError:
            pass
        finally:
            try:
                os.unlink(grave)
            except OSError:
                pass
        return not kept


def is_expired(content: str | None, now_ms: float) -> bool:
    """Expired only when the file says so: a file being written (empty) or unreadable counts as live."""
    if content is None:
        return True
    try:
        at = json.loads(content).get("expires_at_ms")
    except (ValueError, AttributeError):
        return False
    return isinstance(at, (int, float)) and not isinstance(at, bool) and at <= now_ms
