"""Act-exactly-once across a process exit, with real processes against the real Hub: run #1 asks
with a file journal and exits before the answer; a person resolves; run #2 — the same program, the
same idempotency key — sends nothing new (the journaled ack gives the same message back), waits,
and acts; run #3 finds the answer already acted on and does not act again. And a process that dies
after the POST but before the ack is journaled: the restart re-sends the journaled bytes and the
Hub answers the original message (§8.1), so there is still one message. The journal entries are
the TypeScript SDK's format (one JSON file per SHA-256 of the key)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from .hubkit import HERE, Hub, call

AGENT = str(HERE / "support" / "restart_agent.py")


def run(hub: Hub, state: Path, key: str, mode: str) -> tuple[int, list[dict]]:  # type: ignore[type-arg]
    done = subprocess.run(
        [sys.executable, AGENT, str(state), key, mode], env=hub.env(), capture_output=True, text=True, timeout=60
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode in (0, 3), done.stderr
    return done.returncode, lines


def acts(state: Path) -> list[dict]:  # type: ignore[type-arg]
    path = state / "acts.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_exit_between_submit_and_answer_then_restart(hub: Hub, tmp_path: Path) -> None:
    key = "py-restart-1"
    code, [first] = run(hub, tmp_path, key, "exit-after-submit")
    assert code == 0 and first["replayed"] is False
    entry = tmp_path / "journal" / (hashlib.sha256(key.encode()).hexdigest() + ".json")
    saved = json.loads(entry.read_text())
    assert saved["key"] == key and saved["ack"]["id"] == first["id"]
    assert json.loads(saved["bytes"])["idempotency_key"] == key

    hub.resolve(first["id"], {"resolution": "answered", "value": "approve"})

    _, [again, result] = run(hub, tmp_path, key, "resume")
    assert again == {"id": first["id"], "replayed": True}  # nothing new was submitted
    assert result["ran"] is True and result["value"] == "approve"
    # The state is the first run's: the restart did not rebuild the envelope.
    assert result["state"] == {"attempt": "exit-after-submit"}
    _, [third, result3] = run(hub, tmp_path, key, "resume")
    assert third["id"] == first["id"] and result3["ran"] is False
    assert acts(tmp_path) == [{"id": first["id"], "value": "approve"}]


def test_exit_after_the_post_before_the_ack_is_journaled(hub: Hub, tmp_path: Path) -> None:
    key = "py-restart-2"
    code, [lost] = run(hub, tmp_path, key, "exit-before-ack")
    assert code == 3  # died inside submit, after the Hub's 202
    entry = json.loads((tmp_path / "journal" / (hashlib.sha256(key.encode()).hexdigest() + ".json")).read_text())
    assert "ack" not in entry  # bytes saved, ack never recorded

    # Run #2 re-sends the journaled bytes: the Hub answers the message it already has.
    _, [again] = run(hub, tmp_path, key, "exit-after-submit")
    assert again == {"id": lost["lost_ack"], "replayed": True}
    status, view = call(hub.url, hub.a.key, "GET", f"/v1/messages/{again['id']}")
    assert status == 200 and view["status"] == "open"
    hub.resolve(again["id"], {"resolution": "answered", "value": "deny"})
    _, [same, result] = run(hub, tmp_path, key, "resume")
    assert same["id"] == again["id"] and result["ran"] is True
    _, [_, result2] = run(hub, tmp_path, key, "resume")
    assert result2["ran"] is False
    assert acts(tmp_path) == [{"id": again["id"], "value": "deny"}]
