"""The transport's retry rules and error mapping over real HTTP, against a scripted std-lib server
(a Hub cannot be made to answer 429, 5xx or a redirect on demand): 503 then 200 is retried; 429
waits its Retry-After before the retry and a Retry-After over the limit is raised at once as
RateLimitedError; spent 5xx retries become HubUnavailableError keeping the Hub's code; a non-JSON
502 is typed by its status; a 4xx is final (one request); a refused connection is NetworkError; a
redirect is never followed (the credential stays with the Hub); a resolve is not retried on 5xx.
Every error is a Ma2hError and none carries the API key."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ma2h import (
    HubError,
    HubUnavailableError,
    Ma2hError,
    NetworkError,
    NotFoundError,
    RateLimitedError,
    RetryOptions,
)
from ma2h.transport import Transport

KEY = "ma2h_key_secret-of-the-transport-test"
Reply = tuple[int, dict[str, str], bytes]


class Scripted:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.seen: list[tuple[float, str, str | None]] = []
        scripted = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                scripted.seen.append((time.monotonic(), self.path, self.headers.get("authorization")))
                status, headers, body = scripted.replies.pop(0) if scripted.replies else (200, {}, b"{}")
                self.send_response(status)
                for k, v in {"content-type": "application/json", **headers}.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def script(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.seen = []


def envelope(code: str, message: str = "m") -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


@pytest.fixture(scope="module")
def server() -> Iterator[Scripted]:
    s = Scripted()
    yield s
    s.server.shutdown()


def transport(url: str, attempts: int = 3) -> Transport:
    return Transport(url, KEY, retry=RetryOptions(max_attempts=attempts, base_delay=0.01, max_delay=0.05, max_retry_after=2))


def test_5xx_then_success_is_retried(server: Scripted) -> None:
    server.script((503, {}, envelope("unavailable")), (200, {}, b'{"ok":true}'))
    reply = transport(server.url).request("GET", "/v1/x", touchpoint="pull")
    assert reply.status == 200 and reply.body == {"ok": True}
    assert len(server.seen) == 2
    assert server.seen[0][2] == f"Bearer {KEY}"


def test_429_waits_for_retry_after(server: Scripted) -> None:
    server.script((429, {"retry-after": "1"}, envelope("rate_limited")), (200, {}, b"{}"))
    transport(server.url).request("POST", "/v1/messages", touchpoint="submit", body=b"{}")
    assert len(server.seen) == 2
    assert server.seen[1][0] - server.seen[0][0] >= 0.95
    server.script((429, {"retry-after": "30"}, envelope("rate_limited", "slow down")))
    with pytest.raises(RateLimitedError) as info:
        transport(server.url).request("POST", "/v1/messages", touchpoint="submit", body=b"{}")
    assert info.value.retry_after == 30 and info.value.status == 429 and len(server.seen) == 1


def test_spent_5xx_is_unavailable_and_non_json_is_typed_by_status(server: Scripted) -> None:
    server.script(*[(500, {}, envelope("internal_error", "boom"))] * 3)
    with pytest.raises(HubUnavailableError) as info:
        transport(server.url).request("GET", "/v1/x", touchpoint="pull")
    assert info.value.code == "internal_error" and info.value.status == 500 and len(server.seen) == 3
    server.script((502, {"content-type": "text/html"}, b"<html>bad gateway</html>"))
    with pytest.raises(HubUnavailableError) as bad:
        transport(server.url, attempts=1).request("GET", "/v1/x", touchpoint="pull")
    assert bad.value.status == 502 and bad.value.received_code is None
    # Not retried when the caller says so (a resolve): the first 5xx is raised at once (as
    # @ma2h/agent does: HubUnavailableError keeping the Hub's code).
    server.script((500, {}, envelope("internal_error")), (200, {}, b"{}"))
    with pytest.raises(HubUnavailableError) as once:
        transport(server.url).request("POST", "/v1/messages/m/resolve", touchpoint="resolve", body=b"{}", retry_5xx=False)
    assert once.value.code == "internal_error" and len(server.seen) == 1


def test_4xx_is_final_and_unknown_codes_fall_back(server: Scripted) -> None:
    server.script((404, {}, envelope("not_found")))
    with pytest.raises(NotFoundError):
        transport(server.url).request("GET", "/v1/messages/x", touchpoint="pull")
    assert len(server.seen) == 1
    server.script((409, {}, envelope("some_future_code")))
    with pytest.raises(HubError) as info:
        transport(server.url).request("POST", "/v1/messages", touchpoint="submit", body=b"{}")
    assert info.value.code == "idempotency_conflict" and info.value.received_code == "some_future_code"


def test_a_redirect_is_not_followed(server: Scripted) -> None:
    server.script((302, {"location": server.url + "/elsewhere"}, b""))
    with pytest.raises(Ma2hError) as info:
        transport(server.url).request("GET", "/v1/x", touchpoint="pull")
    assert info.value.status == 302
    assert [p for _, p, _ in server.seen] == ["/v1/x"]


def test_no_answer_is_a_network_error() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with pytest.raises(NetworkError) as info:
        transport(f"http://127.0.0.1:{port}", attempts=2).request("GET", "/v1/x", touchpoint="pull")
    assert info.value.code == "network_error" and info.value.status == 0
    assert KEY not in str(info.value) and KEY not in repr(transport("http://h", 1))
