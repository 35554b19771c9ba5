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

from collections.abc import Mapping
from typing import Protocol

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

    def save(self, key: str, data: str) -> None:
        raise NotImplementedError

    def load(self, key: str) -> str | None:
        raise NotImplementedError

    def complete(self, key: str, ack: Mapping[str, object]) -> None:
        raise NotImplementedError

    def ack(self, key: str) -> dict[str, object] | None:
        raise NotImplementedError

    def pending(self) -> list[str]:
        raise NotImplementedError

    def sent(self, message_id: str) -> bool:
        raise NotImplementedError


class FileSubmitJournal:
    """One file per key in ``directory`` (0700), the TypeScript SDK's format."""

    def __init__(self, directory: str) -> None:
        raise NotImplementedError

    def save(self, key: str, data: str) -> None:
        raise NotImplementedError

    def load(self, key: str) -> str | None:
        raise NotImplementedError

    def complete(self, key: str, ack: Mapping[str, object]) -> None:
        raise NotImplementedError

    def ack(self, key: str) -> dict[str, object] | None:
        raise NotImplementedError

    def pending(self) -> list[str]:
        raise NotImplementedError

    def sent(self, message_id: str) -> bool:
        raise NotImplementedError


class DedupStore(Protocol):
    def reserve(self, key: str) -> bool:
        """Reserves ``key`` before the work; False when it was already reserved or done."""
        ...

    def release(self, key: str) -> None:
        """Undoes a reservation whose work failed, so a redelivery is acted on."""
        ...

    def has(self, key: str) -> bool: ...


class MemoryDedupStore:
    def reserve(self, key: str) -> bool:
        raise NotImplementedError

    def release(self, key: str) -> None:
        raise NotImplementedError

    def has(self, key: str) -> bool:
        raise NotImplementedError


class FileDedupStore:
    """A file per reserved key (created exclusively: of two racing processes exactly one wins); kept
    across a crash mid-work — at-most-once wins over at-least-once."""

    def __init__(self, directory: str) -> None:
        raise NotImplementedError

    def reserve(self, key: str) -> bool:
        raise NotImplementedError

    def release(self, key: str) -> None:
        raise NotImplementedError

    def has(self, key: str) -> bool:
        raise NotImplementedError


def response_dedup_key(response: Mapping[str, object]) -> str:
    """§6: ``response:["<in_reply_to>","<resolution_id>"]`` — the TypeScript SDK's key string."""
    raise NotImplementedError
