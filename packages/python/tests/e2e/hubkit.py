"""What the end-to-end tests share (their conftest.py holds the fixtures).

``hub``: ONE real Hub per test session (web + worker on a fresh PostgreSQL database, started by
tests/support/hub_launcher.ts through node/tsx from the repository root; `npm run build` first),
with an account of two agents and an owner's personal access token, inter-agent messages on, and
the session's ASGI push server (e2e/support/asgi_server.py) approved as an hmac callback origin.
Which ``ma2h`` is under test (the installed wheel or ``src/``) is the parent conftest's choice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator


HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent.parent
REPO = PACKAGE.parent.parent

from .support.asgi_server import AsgiServer  # noqa: E402

#: The hmac secret the account's binding holds for the push server's origin (non-ASCII on purpose).
PUSH_SECRET = "py-receiver-secret-Ω "


@dataclass
class Agent:
    id: str
    key: str


@dataclass
class Hub:
    url: str
    a: Agent
    b: Agent
    pat: str
    push: AsgiServer
    proc: subprocess.Popen[str]

    def env(self, agent: Agent | None = None) -> dict[str, str]:
        """An environment for a child process: the MA2H_* variables of ``agent`` (default A)."""
        who = agent or self.a
        return {
            **os.environ,
            "MA2H_URL": self.url,
            "MA2H_API_KEY": who.key,
            "MA2H_AGENT_ID": who.id,
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        }

    def as_person(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """A /v1 call with the owner's personal access token (what the inbox does for a person)."""
        return call(self.url, self.pat, method, path, body)

    def resolve(self, message_id: str, body: dict[str, Any]) -> dict[str, Any]:
        status, out = self.as_person("POST", f"/v1/messages/{message_id}/resolve", body)
        assert status == 200, (status, out)
        return out  # type: ignore[no-any-return]


def call(url: str, token: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method)
    req.add_header("authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            raw = res.read()
            return res.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as err:
        raw = err.read()
        return err.code, json.loads(raw) if raw else None


def wait_for(probe: Any, timeout: float = 20.0, every: float = 0.1, what: str = "the condition") -> Any:
    """Polls ``probe`` until it returns something truthy; fails with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)
