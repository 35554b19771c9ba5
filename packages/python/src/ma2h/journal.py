"""The submit journal and the at-most-once dedup store: the two memories that make
act-exactly-once hold across a process exit.

``FileSubmitJournal`` keeps, per ``idempotency_key``, the exact bytes of a submit (saved before the
POST) and its ack (after the 202), in the SAME on-disk format as ``@ma2h/agent``'s
``FileSubmitJournal``: one file ``<sha256hex(key)>.json`` holding ``{"key","bytes","ack"?}`` (0600,
written to a temporary file and renamed), and ``sent/<sha256hex(message id)>`` indexing the acks'
ids. Either SDK reads the other's journal.

``DedupStore`` reserves a key before the work and releases it when the work failed; the key of a
Response is ``response_dedup_key`` — ``(in_reply_to, resolution_id)``, §6.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import threading
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Protocol, cast

from ._files import KeyDirectory
from .jcs import json_string

__all__ = [
    "SubmitJournal",
    "MemorySubmitJournal",
    "FileSubmitJournal",
    "DedupStore",
    "MemoryDedupStore",
    "FileDedupStore",
    "response_dedup_key",
]


class SubmitJournal(Protocol):
    def save(self, key: str, data: str) -> None:
        """Persists the bytes (as text) about to be POSTed for ``key``, before the request."""
        ...

    def load(self, key: str) -> str | None:
        """The saved bytes for ``key``, or ``None``."""
        ...

    def complete(self, key: str, ack: Mapping[str, object]) -> None:
        """Records the ack for ``key`` (after the 202)."""
        ...

    def ack(self, key: str) -> dict[str, object] | None:
        """The recorded ack for ``key``, or ``None``."""
        ...

    def pending(self) -> list[str]:
        """Keys saved but never completed (sorted): submits a crash may have left unanswered."""
        ...

    def sent(self, message_id: str) -> bool:
        """Whether ``message_id`` is the id of an ack recorded here."""
        ...


class MemorySubmitJournal:
    """A journal that lasts as long as the process."""

    def __init__(self) -> None:
        self._entries: dict[str, dict[str, object]] = {}
        self._lock = threading.Lock()

    def save(self, key: str, data: str) -> None:
        with self._lock:
            self._entries[key] = {"key": key, "bytes": data}

    def load(self, key: str) -> str | None:
        entry = self._entries.get(key)
        return None if entry is None else cast(str, entry["bytes"])

    def complete(self, key: str, ack: Mapping[str, object]) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                entry["ack"] = dict(ack)

    def ack(self, key: str) -> dict[str, object] | None:
        entry = self._entries.get(key)
        return None if entry is None else cast("dict[str, object] | None", entry.get("ack"))

    def pending(self) -> list[str]:
        return [k for k, e in list(self._entries.items()) if "ack" not in e]

    def sent(self, message_id: str) -> bool:
        for entry in list(self._entries.values()):
            ack = entry.get("ack")
            if isinstance(ack, Mapping) and ack.get("id") == message_id:
                return True
        return False


_ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.json")


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _dumps(value: object) -> str:
    """``JSON.stringify`` of a parsed JSON value: compact, non-ASCII as is, key order kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class FileSubmitJournal:
    """One file per key in ``directory`` (0700), the TypeScript SDK's format: ``<sha256hex(key)>.json``
    holding ``{"key","bytes","ack"?}`` (0600: the bytes include the envelope's ``state``), each write
    to a temporary file renamed over the entry so a crash never leaves a torn one; each ack's message
    id indexed as an empty ``sent/<sha256hex(id)>``. An id missing from the index (a journal written
    before it) is looked for among the entries once and then indexed."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._ready = False

    def _mkdir(self) -> None:
        if not self._ready:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            self._ready = True

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, f"{_sha256_hex(key)}.json")

    def _write(self, entry: Mapping[str, object]) -> None:
        self._mkdir()
        target = self._path(cast(str, entry["key"]))
        temp = f"{target}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(_dumps(entry))
            os.replace(temp, target)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise

    def _read(self, path: str) -> dict[str, object] | None:
        try:
            with open(path, encoding="utf-8") as f:
                value = json.load(f)
        except FileNotFoundError:
            return None
        return value if isinstance(value, dict) else None

    def save(self, key: str, data: str) -> None:
        self._write({"key": key, "bytes": data})

    def load(self, key: str) -> str | None:
        entry = self._read(self._path(key))
        data = None if entry is None else entry.get("bytes")
        return data if isinstance(data, str) else None

    def complete(self, key: str, ack: Mapping[str, object]) -> None:
        entry = self._read(self._path(key))
        if entry is None:
            return
        self._write({**entry, "ack": dict(ack)})
        ident = ack.get("id")
        if isinstance(ident, str):
            self._index(ident)

    def ack(self, key: str) -> dict[str, object] | None:
        entry = self._read(self._path(key))
        ack = None if entry is None else entry.get("ack")
        return cast("dict[str, object]", ack) if isinstance(ack, dict) else None

    def _sent_path(self, message_id: str) -> str:
        return os.path.join(self.directory, "sent", _sha256_hex(message_id))

    def _index(self, message_id: str) -> None:
        os.makedirs(os.path.join(self.directory, "sent"), mode=0o700, exist_ok=True)
        fd = os.open(self._sent_path(message_id), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)

    def _entry_names(self) -> list[str]:
        self._mkdir()
        return [n for n in os.listdir(self.directory) if _ENTRY_NAME.fullmatch(n)]

    def sent(self, message_id: str) -> bool:
        if os.path.exists(self._sent_path(message_id)):
            return True
        for name in self._entry_names():
            entry = self._read(os.path.join(self.directory, name))
            ack = None if entry is None else entry.get("ack")
            if isinstance(ack, Mapping) and ack.get("id") == message_id:
                self._index(message_id)
                return True
        return False

    def pending(self) -> list[str]:
        out: list[str] = []
        for name in self._entry_names():
            entry = self._read(os.path.join(self.directory, name))
            if entry is not None and "ack" not in entry and isinstance(entry.get("key"), str):
                out.append(cast(str, entry["key"]))
        return sorted(out, key=lambda k: k.encode("utf-16-be", "surrogatepass"))


class DedupStore(Protocol):
    def reserve(self, key: str) -> bool:
        """Reserves ``key`` before the work; False when it was already reserved or done."""
        ...

    def release(self, key: str) -> None:
        """Undoes a reservation whose work failed, so a redelivery is acted on."""
        ...

    def has(self, key: str) -> bool: ...


class MemoryDedupStore:
    """Reservations that last as long as the process."""

    def __init__(self) -> None:
        self._keys: set[str] = set()
        self._lock = threading.Lock()

    def reserve(self, key: str) -> bool:
        with self._lock:
            if key in self._keys:
                return False
            self._keys.add(key)
            return True

    def release(self, key: str) -> None:
        with self._lock:
            self._keys.discard(key)

    def has(self, key: str) -> bool:
        return key in self._keys


class FileDedupStore:
    """A file per reserved key (created exclusively: of two racing processes exactly one wins); kept
    across a crash mid-work — at-most-once wins over at-least-once. The TypeScript SDK's layout."""

    def __init__(self, directory: str) -> None:
        self._files = KeyDirectory(directory)

    def reserve(self, key: str) -> bool:
        stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return self._files.create(key, _dumps({"reserved_at": stamp}))

    def release(self, key: str) -> None:
        self._files.remove(self._files.path(key))

    def has(self, key: str) -> bool:
        self._files.ready()
        return self._files.read(self._files.path(key)) is not None


def response_dedup_key(response: Mapping[str, object]) -> str:
    """§6: ``response:["<in_reply_to>","<resolution_id>"]`` — the TypeScript SDK's key string, so
    either SDK's ``FileDedupStore`` recognises the other's reservations."""
    return f"response:[{json_string(str(response['in_reply_to']))},{json_string(str(response['resolution_id']))}]"
