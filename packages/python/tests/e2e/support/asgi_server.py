"""A tiny standard-library HTTP/1.1 server for ASGI apps (tests only): asyncio streams, one request
per connection, Content-Length bodies. It runs its event loop in a background thread, routes by
path to mounted ASGI apps, and records every request raw (method, path, headers, body) so a test
can replay a captured push byte for byte."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable


@dataclass
class Captured:
    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes
    status: int = 0

    def header(self, name: str) -> str | None:
        for k, v in self.headers:
            if k == name:
                return v
        return None


@dataclass
class AsgiServer:
    host: str = "127.0.0.1"
    port: int = 0
    apps: dict[str, Callable[..., Awaitable[None]]] = field(default_factory=dict)
    captured: list[Captured] = field(default_factory=list)

    def start(self) -> "AsgiServer":
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, self.host, self.port))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def mount(self, path: str, app: Callable[..., Awaitable[None]]) -> str:
        self.apps[path] = app
        return self.origin + path

    def at(self, path: str) -> list[Captured]:
        return [c for c in self.captured if c.path == path]

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = []
            for line in lines[1:]:
                if line:
                    k, v = line.split(":", 1)
                    headers.append((k.strip().lower(), v.strip()))
            length = int(dict(headers).get("content-length", "0"))
            body = await reader.readexactly(length) if length else b""
            path, _, query = target.partition("?")
            record = Captured(method, path, headers, body)
            self.captured.append(record)
            app = self.apps.get(path)
            if app is None:
                writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                await writer.drain()
                return
            scope: dict[str, Any] = {
                "type": "http",
                "asgi": {"version": "3.0"},
                "http_version": "1.1",
                "method": method,
                "scheme": "http",
                "path": path,
                "raw_path": path.encode(),
                "query_string": query.encode(),
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers],
                "client": writer.get_extra_info("peername"),
                "server": (self.host, self.port),
            }
            sent_body = False

            async def receive() -> dict[str, Any]:
                nonlocal sent_body
                if sent_body:
                    await asyncio.sleep(3600)
                sent_body = True
                return {"type": "http.request", "body": body, "more_body": False}

            out: dict[str, Any] = {"status": 500, "headers": [], "body": b""}

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    out["status"] = message["status"]
                    out["headers"] = message.get("headers", [])
                elif message["type"] == "http.response.body":
                    out["body"] += message.get("body", b"")

            await app(scope, receive, send)
            record.status = out["status"]
            head_out = f"HTTP/1.1 {out['status']} X\r\n".encode()
            for k, v in out["headers"]:
                if k.lower() not in (b"content-length", b"connection"):
                    head_out += k + b": " + v + b"\r\n"
            head_out += f"content-length: {len(out['body'])}\r\nconnection: close\r\n\r\n".encode()
            writer.write(head_out + out["body"])
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()
