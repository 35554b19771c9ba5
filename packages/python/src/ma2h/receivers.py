"""Push receivers (§8.3): a WSGI app and an ASGI app around one flow, as ``@ma2h/agent``'s
receivers.ts — read the raw body (capped), ``verify_push`` (§9.2), reserve the §6 at-most-once key
``(in_reply_to, resolution_id)``, call ``on_response``, answer.

The answers steer the Hub's at-least-once delivery (§8.3: it retries 5xx and network errors, never
4xx):

- 200: acted on, or a duplicate (already reserved/done: acknowledged without acting again);
- 401: the push failed verification (retrying cannot help; the answer stays pull-available, §8.2);
- 500: ``on_response`` raised: the reservation is released and the Hub retries;
- 503: the Hub's keys could not be fetched (our side, transient);
- 405 for anything but POST; 413 for a body over the cap (1 MiB unless ``max_body_bytes``).

Error bodies are the §8.5 envelope ``{"error": {"code", "message"}}`` and never echo the input.
``on_response`` may be a plain function or (ASGI) a coroutine function. The ASGI app verifies in a
worker thread (a key fetch may block) and runs a plain ``on_response`` there too, so a blocking
handler never stalls the event loop.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Optional, Union

from .errors import HubKeysError, VerificationError
from .journal import DedupStore, MemoryDedupStore, response_dedup_key
from .push import verify_push
from .response import Response

__all__ = ["asgi_push_receiver", "wsgi_push_receiver", "PushReceiver"]

DEFAULT_MAX_BODY_BYTES = 1024 * 1024

OnResponse = Callable[[Response], Union[None, Awaitable[None]]]
Answer = tuple[int, dict[str, Any], dict[str, str]]


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


class PushReceiver:
    """One receiver flow, independent of the server interface. ``verify`` holds the keyword
    options of :func:`ma2h.push.verify_push` (``callback_url`` and ``hmac_secret`` or
    ``hub_url``/``hub_keys``, optionally ``key_id``, ``journal``, ``replay_store``…)."""

    def __init__(
        self,
        on_response: OnResponse,
        *,
        dedup_store: Optional[DedupStore] = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        on_error: Optional[Callable[[BaseException], None]] = None,
        **verify: Any,
    ) -> None:
        if not isinstance(verify.get("callback_url"), str) or not verify["callback_url"]:
            raise TypeError("callback_url is required: the URL exactly as registered in callback.url")
        self.on_response = on_response
        self.dedup: DedupStore = dedup_store if dedup_store is not None else MemoryDedupStore()
        self.max_body_bytes = max_body_bytes
        self.on_error = on_error
        self.verify = verify

    def _report(self, err: BaseException) -> None:
        try:
            if self.on_error:
                self.on_error(err)
        except Exception:  # noqa: BLE001 - a failing logger must not change the answer
            pass

    def not_post(self) -> Answer:
        return 405, _error("validation_error", "only POST is accepted"), {"allow": "POST"}

    def too_large(self) -> Answer:
        return 413, _error("validation_error", f"the body is over {self.max_body_bytes} bytes"), {}

    def check(self, headers: Any, raw: bytes) -> Union[Answer, tuple[Response, str]]:
        """Verifies and reserves: an answer to send now, or the Response and its reserved key."""
        try:
            response = verify_push(headers, raw, **self.verify)
        except VerificationError as err:
            self._report(err)  # which check refused it goes to on_error only
            return 401, _error("unauthenticated", "the push failed verification"), {}
        except HubKeysError as err:
            self._report(err)
            return 503, _error("unavailable", "the Hub's signing keys are unavailable"), {}
        except Exception as err:  # noqa: BLE001
            self._report(err)
            return 500, _error("internal_error", "the receiver failed"), {}
        try:
            key = response_dedup_key(response)
            reserved = self.dedup.reserve(key)
        except Exception as err:  # noqa: BLE001
            self._report(err)
            return 500, _error("internal_error", "the dedup store failed; retry"), {}
        if not reserved:
            return 200, {"ok": True, "duplicate": True}, {}
        return response, key

    def failed(self, key: str, err: BaseException) -> Answer:
        self._report(err)
        try:
            self.dedup.release(key)  # so the Hub's retry is acted on
        except Exception as e:  # noqa: BLE001
            self._report(e)
        return 500, _error("internal_error", "the handler failed; retry"), {}

    def handle(self, headers: Any, raw: bytes) -> Answer:
        """The whole flow, synchronously (``on_response`` must be a plain function)."""
        checked = self.check(headers, raw)
        if len(checked) == 3:
            return checked  # type: ignore[return-value]
        response, key = checked  # type: ignore[misc]
        try:
            result = self.on_response(response)
            if inspect.isawaitable(result):
                raise TypeError("on_response returned an awaitable: use asgi_push_receiver for a coroutine")
        except Exception as err:  # noqa: BLE001
            return self.failed(key, err)
        return 200, {"ok": True}, {}

    async def handle_async(self, headers: Any, raw: bytes) -> Answer:
        checked = await asyncio.to_thread(self.check, headers, raw)
        if len(checked) == 3:
            return checked  # type: ignore[return-value]
        response, key = checked  # type: ignore[misc]
        try:
            if inspect.iscoroutinefunction(self.on_response):
                await self.on_response(response)
            else:
                # A plain function may block (a LangGraph resume, a file write): off the event loop.
                result = await asyncio.to_thread(self.on_response, response)
                if inspect.isawaitable(result):
                    await result
        except Exception as err:  # noqa: BLE001
            return self.failed(key, err)
        return 200, {"ok": True}, {}


def _wsgi_headers(environ: Mapping[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for k, v in environ.items():
        if k.startswith("HTTP_"):
            out.append((k[5:].replace("_", "-").lower(), str(v)))
        elif k in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            out.append((k.replace("_", "-").lower(), str(v)))
    return out


def wsgi_push_receiver(on_response: Callable[[Response], None], **options: Any) -> Callable[..., Iterable[bytes]]:
    """A WSGI app: ``wsgiref.simple_server.make_server(host, port, wsgi_push_receiver(...))``, or
    mount it in Flask/Django. Options: see :class:`PushReceiver`."""
    flow = PushReceiver(on_response, **options)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        def send(a: Answer) -> Iterable[bytes]:
            status, body, headers = a
            data = json.dumps(body).encode("utf-8")
            reason = {200: "OK", 401: "Unauthorized", 405: "Method Not Allowed", 413: "Payload Too Large", 500: "Internal Server Error", 503: "Service Unavailable", 400: "Bad Request"}.get(status, "")
            start_response(
                f"{status} {reason}",
                [("content-type", "application/json"), ("content-length", str(len(data))), *headers.items()],
            )
            return [data]

        if environ.get("REQUEST_METHOD") != "POST":
            return send(flow.not_post())
        try:
            declared = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > flow.max_body_bytes:
            return send(flow.too_large())
        stream = environ["wsgi.input"]
        raw = stream.read(declared) if declared > 0 else b""
        return send(flow.handle(_wsgi_headers(environ), raw))

    return app


ASGIApp = Callable[[dict[str, Any], Callable[[], Awaitable[dict[str, Any]]], Callable[[dict[str, Any]], Awaitable[None]]], Awaitable[None]]


def asgi_push_receiver(on_response: OnResponse, **options: Any) -> ASGIApp:
    """An ASGI app (uvicorn, Starlette/FastAPI ``app.mount``, or any ASGI 3 server). ``on_response``
    may be a coroutine function. Options: see :class:`PushReceiver`."""
    flow = PushReceiver(on_response, **options)

    async def app(
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[dict[str, Any]]],
        send: Callable[[dict[str, Any]], Awaitable[None]],
    ) -> None:
        if scope.get("type") == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope.get("type") != "http":
            return

        async def reply(a: Answer) -> None:
            status, body, headers = a
            data = json.dumps(body).encode("utf-8")
            raw_headers: Sequence[tuple[bytes, bytes]] = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()),
            ]
            await send({"type": "http.response.start", "status": status, "headers": list(raw_headers)})
            await send({"type": "http.response.body", "body": data})

        if scope.get("method") != "POST":
            await reply(flow.not_post())
            return
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope.get("headers", [])]
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > flow.max_body_bytes:
                await reply(flow.too_large())
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await reply(await flow.handle_async(headers, b"".join(chunks)))

    return app
