"""``AsyncClient``: the same client on asyncio. It shares the synchronous core — the envelopes, the
journal, the verifiers, the transport and its retry rules — and runs each blocking call in a worker
thread (``asyncio.to_thread``), so the event loop is never blocked by the network or the file stores.
A ``wait()`` holds one worker thread while it long-polls, in holds of at most ``ASYNC_HOLD_SECONDS``:
cancelling the awaiting task stops the wait at the end of the current hold (its thread is told
through an event), so a cancelled wait never keeps the event loop's executor busy for longer.

    client = AsyncClient.from_env()
    handle = await client.ask.confirm("Deploy v2 to production?")
    answer = await handle.wait(timeout=600)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional, TypeVar, Union

from .client import Answer, Client, MessageHandle
from .directive import Directive, VerifiedEntry
from .transport import Cancelled

__all__ = ["AsyncClient", "AsyncMessageHandle"]

T = TypeVar("T")

#: The longest single long-poll hold of an async wait (a cancellation takes effect within it).
ASYNC_HOLD_SECONDS = 15


class AsyncMessageHandle:
    """The async twin of :class:`ma2h.client.MessageHandle`."""

    def __init__(self, handle: MessageHandle) -> None:
        self.sync = handle
        self.id = handle.id
        self.ack = handle.ack
        self.replayed = handle.replayed

    @property
    def destination(self) -> Optional[dict[str, Any]]:
        return self.sync.destination

    async def wait(self, timeout: Optional[float] = None, *, require_human: Optional[bool] = None) -> Answer:
        """Long-polls until the §6 Response (see ``MessageHandle.wait``)."""
        stop = threading.Event()
        try:
            return await asyncio.to_thread(
                self.sync.wait, timeout, require_human=require_human, cancel=stop, hold=ASYNC_HOLD_SECONDS
            )
        except asyncio.CancelledError:
            stop.set()
            raise
        except Cancelled:  # pragma: no cover - only when stop was set by a cancellation
            raise asyncio.CancelledError() from None

    async def get(self, *, wait: Optional[int] = None) -> Optional[dict[str, Any]]:
        return await asyncio.to_thread(self.sync.get, wait=wait)

    async def cancel(self) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.cancel)

    async def acknowledge(self, *, note: Optional[str] = None, resolution_id: Optional[str] = None) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.acknowledge, note=note, resolution_id=resolution_id)

    def __repr__(self) -> str:
        return f"AsyncMessageHandle(id={self.id!r})"


class _AsyncAsk:
    def __init__(self, client: Client) -> None:
        self._c = client

    async def confirm(self, title: str, **options: Any) -> AsyncMessageHandle:
        return AsyncMessageHandle(await asyncio.to_thread(self._c.ask.confirm, title, **options))

    async def select(self, title: str, options: Sequence[Union[str, Mapping[str, Any]]], **more: Any) -> AsyncMessageHandle:
        return AsyncMessageHandle(await asyncio.to_thread(self._c.ask.select, title, options, **more))

    async def input(self, title: str, schema: Mapping[str, Any], **options: Any) -> AsyncMessageHandle:
        return AsyncMessageHandle(await asyncio.to_thread(self._c.ask.input, title, schema, **options))


class _AsyncSessions:
    def __init__(self, client: Client) -> None:
        self._c = client

    async def register(self, **options: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self._c.sessions.register, **options)

    async def close(self, session_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(self._c.sessions.close, session_id)

    async def drain(self, session_id: str, **options: Any) -> list[VerifiedEntry]:
        return await asyncio.to_thread(self._c.sessions.drain, session_id, **options)

    async def ack(self, session_id: str, entries: Sequence[Union[str, VerifiedEntry]], **options: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self._c.sessions.ack, session_id, entries, **options)

    async def release(self, entry: VerifiedEntry) -> None:
        await asyncio.to_thread(self._c.sessions.release, entry)


class _AsyncDirectives:
    def __init__(self, client: Client) -> None:
        self._c = client

    async def drain(self, **options: Any) -> list[Directive]:
        return await asyncio.to_thread(self._c.directives.drain, **options)

    async def ack(self, ids: Sequence[str], *, note: Optional[str] = None) -> dict[str, Any]:
        return await asyncio.to_thread(self._c.directives.ack, ids, note=note)

    async def run_once(self, handler: Callable[[Directive], Optional[str]], **options: Any) -> int:
        """One pass of drain → verify → act → ack; ``handler`` runs in the worker thread."""
        return await asyncio.to_thread(self._c.directives.run_once, handler, **options)

    async def listen(self, handler: Callable[[Directive], Optional[str]], **options: Any) -> None:
        """The §13.4 loop until the awaiting task is cancelled; ``handler`` runs in the worker thread."""
        stop = threading.Event()
        try:
            await asyncio.to_thread(self._c.directives.listen, handler, stop=stop, **options)
        except asyncio.CancelledError:
            stop.set()
            raise


class AsyncClient:
    """The asyncio client. Built like :class:`ma2h.Client` (same arguments), or around one."""

    def __init__(self, url: Optional[str] = None, api_key: Optional[str] = None, agent_id: Optional[str] = None, *, client: Optional[Client] = None, **options: Any) -> None:
        if client is None:
            client = Client(url or "", api_key or "", agent_id or "", **options)
        self.sync = client
        self.url = client.url
        self.agent_id = client.agent_id
        self.ask = _AsyncAsk(client)
        self.sessions = _AsyncSessions(client)
        self.directives = _AsyncDirectives(client)

    @classmethod
    def from_env(cls, **overrides: Any) -> "AsyncClient":
        """From ``MA2H_URL``, ``MA2H_API_KEY`` and ``MA2H_AGENT_ID`` (keyword overrides win)."""
        return cls(client=Client.from_env(**overrides))

    @property
    def session(self) -> Optional[str]:
        return self.sync.session

    def address(self, session: Optional[str] = None) -> str:
        return self.sync.address(session)

    async def capability(self) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.capability)

    async def notify(self, title: str, **options: Any) -> AsyncMessageHandle:
        return AsyncMessageHandle(await asyncio.to_thread(self.sync.notify, title, **options))

    async def task(self, title: str, instructions: str, **options: Any) -> AsyncMessageHandle:
        return AsyncMessageHandle(await asyncio.to_thread(self.sync.task, title, instructions, **options))

    async def submit(self, envelope: Mapping[str, Any]) -> AsyncMessageHandle:
        return AsyncMessageHandle(await asyncio.to_thread(self.sync.messages.submit, envelope))

    async def resolve(self, message_id: str, resolution: str, **options: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.resolve, message_id, resolution, **options)

    async def cancel(self, message_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.messages.cancel, message_id)

    def handle(self, message_id: str) -> AsyncMessageHandle:
        return AsyncMessageHandle(self.sync.handle(message_id))

    async def act_once(self, response: Mapping[str, Any], action: Callable[[Mapping[str, Any]], T]) -> tuple[bool, Optional[T]]:
        """``Client.act_once`` (the action runs in the worker thread)."""
        return await asyncio.to_thread(lambda: self.sync.act_once(response, action))
