"""The submit journal across the two SDKs, end to end against the real Hub: the Python client asks
with a file journal and exits; the TypeScript SDK (tsx, from source) replays the journaled bytes and
the Hub answers the same message. And the other way: the TypeScript SDK asks with its journal and
exits; the Python client, asking again under the same key with that journal, sends nothing new and
waits on the same message — which a person then answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ma2h import Client, FileSubmitJournal

from .hubkit import HERE, REPO, Hub

TS_AGENT = str(HERE / "support" / "ts_agent.ts")


def ts(hub: Hub, mode: str, journal: Path, key: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run(
        ["node", "--import", "tsx", TS_AGENT, mode, str(journal), key],
        cwd=REPO,
        env=hub.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_python_journal_replayed_by_typescript(hub: Hub, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    key = "py-to-ts-1"
    code = (
        "import sys; from ma2h import Client, FileSubmitJournal;"
        "c = Client.from_env(journal=FileSubmitJournal(sys.argv[1]));"
        "print(c.ask.confirm('Asked from Python', idempotency_key=sys.argv[2]).id)"
    )
    first = subprocess.run([sys.executable, "-c", code, str(journal), key], env=hub.env(), capture_output=True, text=True, timeout=30)
    assert first.returncode == 0, first.stderr
    replayed = ts(hub, "replay", journal, key)
    assert replayed["id"] == first.stdout.strip()


def test_typescript_journal_reused_by_python(hub: Hub, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    key = "ts-to-py-1"
    asked = ts(hub, "ask", journal, key)
    client = Client(hub.url, hub.a.key, hub.a.id, journal=FileSubmitJournal(str(journal)))
    handle = client.ask.confirm("Asked from Python this time", idempotency_key=key)
    assert handle.id == asked["id"] and handle.replayed is True
    hub.resolve(handle.id, {"resolution": "answered", "value": "approve"})
    answer = handle.wait(timeout=20)
    assert answer.value == "approve" and answer["in_reply_to"] == asked["id"]
