"""An agent process for the restart test: asks (with a fixed idempotency key, a file journal and a
file dedup store), then either dies before the answer, dies after the POST but before the ack is
journaled, or waits for the answer and acts on it at most once (appending a line to ``acts``).

usage: restart_agent.py <state-dir> <idempotency-key> <exit-after-submit|exit-before-ack|resume>
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ma2h import Client, FileDedupStore, FileSubmitJournal

state, key, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
journal = FileSubmitJournal(str(state / "journal"))
if mode == "exit-before-ack":
    # The POST reaches the Hub, the process dies before the ack is recorded (telling the test
    # which id the Hub gave, so it can check the restart gets that same message back).
    def die(_key: str, ack: dict) -> None:  # type: ignore[type-arg]
        print(json.dumps({"lost_ack": ack["id"]}), flush=True)
        os._exit(3)

    journal.complete = die  # type: ignore[method-assign,assignment]
client = Client.from_env(journal=journal, dedup_store=FileDedupStore(str(state / "dedup")))
handle = client.ask.confirm("Restart-safe deploy?", idempotency_key=key, state={"attempt": mode})
print(json.dumps({"id": handle.id, "replayed": handle.replayed}), flush=True)
if mode == "exit-after-submit":
    os._exit(0)  # no cleanup, no answer: the process is simply gone

answer = handle.wait(timeout=30)


def act(response: object) -> str:
    with open(state / "acts.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps({"id": handle.id, "value": answer.value}) + "\n")
    return "acted"


ran, _ = client.act_once(answer, act)
print(json.dumps({"ran": ran, "value": answer.value, "state": answer.state}), flush=True)
