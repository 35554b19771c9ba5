"""Shared fixtures of the Python package's tests.

``hub``: ONE real Hub per test session (web + worker on a fresh PostgreSQL database, started by
tests/support/hub_launcher.ts through node/tsx from the repository root; `npm run build` first),
with an account of two agents and an owner's personal access token, inter-agent messages on, and
the session's ASGI push server (tests/support/asgi_server.py) approved as an hmac callback origin.

The package under test is the installed one when ``ma2h`` is importable (scripts/ci.sh installs
the wheel into a venv); otherwise ``src/`` is put on the path. ``MA2H_PY_REQUIRE_INSTALLED=1``
fails the run when the import would come from ``src/``.
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

import pytest

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent
REPO = PACKAGE.parent.parent
sys.path.insert(0, str(HERE))  # tests/support

try:
    import ma2h  # noqa: F401
except ImportError:
    sys.path.insert(0, str(PACKAGE / "src"))
    import ma2h  # noqa: F401

if os.environ.get("MA2H_PY_REQUIRE_INSTALLED") == "1" and str(PACKAGE / "src") in str(Path(ma2h.__file__).resolve()):
    raise RuntimeError(f"ma2h is imported from the source tree ({ma2h.__file__}), not the installed wheel")

from support.asgi_server import AsgiServer  # noqa: E402

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
def client(hub: Hub) -> "ma2h.Client":
    from ma2h import Client, RetryOptions

    return Client(hub.url, hub.a.key, hub.a.id, retry=RetryOptions(base_delay=0.02))
