"""``ma2h.AsyncClient`` against the real Hub: the same ask → a person resolves → ``await
handle.wait()`` flow on asyncio, several waits at once on one event loop, a wait cancelled with
its task, and the §8.5 errors raised from the coroutines."""

from __future__ import annotations

import asyncio

import pytest

from ma2h import AsyncClient, NotFoundError, RetryOptions, UnauthenticatedError, WaitTimeoutError

from .hubkit import Hub


def test_async_ask_wait(hub: Hub) -> None:
    async def main() -> None:
        client = AsyncClient(hub.url, hub.a.key, hub.a.id, retry=RetryOptions(base_delay=0.02))
        first = await client.ask.confirm("Async deploy?", state={"async": True})
        second = await client.ask.select("Async region?", ["eu", "us"])

        async def person() -> None:
            await asyncio.sleep(0.5)
            await asyncio.to_thread(hub.resolve, second.id, {"resolution": "answered", "value": "us"})
            await asyncio.to_thread(hub.resolve, first.id, {"resolution": "declined", "comment": "not today"})

        answers = await asyncio.gather(first.wait(timeout=30), second.wait(timeout=30), person())
        assert answers[0].resolution == "declined" and answers[0].by_human and answers[0].state == {"async": True}
        assert answers[1].value == "us"

        task = await client.task("Async task", "Do the thing")
        await asyncio.to_thread(hub.resolve, task.id, {"resolution": "dismissed"})
        assert (await task.wait(timeout=10)).resolution == "dismissed"

        pending = await client.ask.confirm("Cancelled wait")
        waiter = asyncio.ensure_future(pending.wait(timeout=60))
        await asyncio.sleep(0.3)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert (await pending.cancel())["status"] == "cancelled"

        with pytest.raises(WaitTimeoutError):
            await (await client.ask.confirm("Times out")).wait(timeout=1)
        with pytest.raises(NotFoundError):
            await client.cancel("msg_nope")
        bad = AsyncClient(hub.url, "ma2h_key_wrong", hub.a.id)
        with pytest.raises(UnauthenticatedError):
            await bad.notify("nope")

    asyncio.run(main())
