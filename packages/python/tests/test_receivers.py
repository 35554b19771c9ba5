"""The receivers' answers that need no Hub, through the ASGI and WSGI interfaces themselves: 405
for anything but POST (with Allow), 413 for a body over the cap (declared or streamed), 401 for a
push that does not verify (the reason goes to on_error only, never into the answer), 200 for a
genuine push signed here with the Hub's algorithm, and a duplicate acknowledged without acting.
The end-to-end flow with the Hub's own pushes is tests/e2e/test_push_e2e.py."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
from typing import Any

from ma2h import MemoryReplayStore, asgi_push_receiver, wsgi_push_receiver
from ma2h.push import HmacKey, sign_response_push

URL = "https://agent.example/ma2h/resume?run=1"
SECRET = "receiver-unit-secret"
RESPONSE = {
    "ma2h_version": "0.6",
    "in_reply_to": "msg_1",
    "resolution_id": "res_1",
    "agent": {"id": "a/b", "run_id": "run_1"},
    "resolution": "answered",
    "response": {"value": "approve", "actor": "human:alice", "resolved_at": "2026-12-07T10:00:00.000Z", "edited": False},
}


def call_asgi(app: Any, method: str, headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> tuple[int, dict[str, str], Any]:
    out: dict[str, Any] = {"body": b""}
    queue = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]

    async def receive() -> dict[str, Any]:
        return queue.pop(0)

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
            out["headers"] = {k.decode(): v.decode() for k, v in message["headers"]}
        else:
            out["body"] += message.get("body", b"")

    asyncio.run(app({"type": "http", "method": method, "path": "/ma2h/resume", "headers": headers}, receive, send))
    return out["status"], out["headers"], json.loads(out["body"])


def test_asgi_answers() -> None:
    acted: list[Any] = []
    errors: list[Any] = []

    async def on_response(r: Any) -> None:
        acted.append(r)

    app = asgi_push_receiver(on_response, callback_url=URL, hmac_secret=SECRET, replay_store=MemoryReplayStore(), max_body_bytes=4096, on_error=errors.append)
    status, headers, body = call_asgi(app, "GET", [], [b""])
    assert status == 405 and headers["allow"] == "POST" and body["error"]["code"] == "validation_error"
    status, _, _ = call_asgi(app, "POST", [], [b"x" * 3000, b"y" * 3000])
    assert status == 413
    raw = json.dumps(RESPONSE).encode()
    status, _, body = call_asgi(app, "POST", [(b"ma2h-signature", b"t=1,jti=j,v1=AAAA")], [raw])
    assert status == 401 and body == {"error": {"code": "unauthenticated", "message": "the push failed verification"}}
    assert getattr(errors[-1], "reason", None) in ("outside_window", "malformed_mac")
    signature = sign_response_push(RESPONSE, callback_url=URL, key=HmacKey(SECRET), now=dt.datetime.now(dt.timezone.utc))
    status, _, body = call_asgi(app, "POST", [(b"MA2H-Signature", signature.encode())], [raw[:10], raw[10:]])
    assert status == 200 and body == {"ok": True} and acted == [RESPONSE]
    again = sign_response_push(RESPONSE, callback_url=URL, key=HmacKey(SECRET), now=dt.datetime.now(dt.timezone.utc))
    status, _, body = call_asgi(app, "POST", [(b"ma2h-signature", again.encode())], [raw])
    assert status == 200 and body == {"ok": True, "duplicate": True} and len(acted) == 1


def test_wsgi_answers() -> None:
    acted: list[Any] = []
    app = wsgi_push_receiver(acted.append, callback_url=URL, hmac_secret=SECRET, replay_store=MemoryReplayStore(), max_body_bytes=1024)

    def run(method: str, body: bytes, signature: str = "") -> tuple[str, Any]:
        environ = {"REQUEST_METHOD": method, "CONTENT_LENGTH": str(len(body)), "HTTP_MA2H_SIGNATURE": signature, "wsgi.input": io.BytesIO(body)}
        status: list[str] = []
        out = b"".join(app(environ, lambda s, h: status.append(s)))
        return status[0], json.loads(out)

    assert run("PUT", b"")[0].startswith("405")
    assert run("POST", b"x" * 1025)[0].startswith("413")
    raw = json.dumps(RESPONSE).encode()
    assert run("POST", raw, "garbage")[0].startswith("401")
    signature = sign_response_push(RESPONSE, callback_url=URL, key=HmacKey(SECRET), now=dt.datetime.now(dt.timezone.utc))
    assert run("POST", raw, signature) == ("200 OK", {"ok": True})
    assert run("POST", raw, signature)[0].startswith("401")  # its jti again: a replay
    assert acted == [RESPONSE]
