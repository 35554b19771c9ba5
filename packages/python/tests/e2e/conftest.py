"""Fixtures of the end-to-end tests: ONE real Hub per test session (see hubkit.py) and a client of
agent A on it."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator

import pytest

import ma2h
from .hubkit import HERE, PUSH_SECRET, REPO, Agent, Hub
from .support.asgi_server import AsgiServer


@pytest.fixture(scope="session")
def hub() -> Iterator[Hub]:
    if not (REPO / ".next").exists():
        pytest.fail("the Hub is not built: run `npm run build` at the repository root first")
    push = AsgiServer().start()
    proc = subprocess.Popen(
        ["node", "--import", "tsx", str(HERE / "support" / "hub_launcher.ts"), push.origin, PUSH_SECRET],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    err_lines: list[str] = []
    threading.Thread(target=lambda: err_lines.extend(proc.stderr or []), daemon=True).start()
    line = proc.stdout.readline()
    if not line:
        proc.wait(10)
        pytest.fail("the Hub launcher exited without starting the Hub:\n" + "".join(err_lines)[-4000:])
    info = json.loads(line)
    hub = Hub(
        url=info["url"],
        a=Agent(**info["agents"]["a"]),
        b=Agent(**info["agents"]["b"]),
        pat=info["pat"],
        push=push,
        proc=proc,
    )
    try:
        yield hub
    finally:
        assert proc.stdin is not None
        proc.stdin.close()  # the launcher stops the Hub and drops its database
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        push.stop()


@pytest.fixture()
def client(hub: Hub) -> ma2h.Client:
    from ma2h import Client, RetryOptions

    return Client(hub.url, hub.a.key, hub.a.id, retry=RetryOptions(base_delay=0.02))
