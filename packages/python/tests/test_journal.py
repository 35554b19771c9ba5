"""The submit journal (same files as @ma2h/agent's FileSubmitJournal) and the dedup stores: what a
crash between submit and answer leaves (pending keys, saved bytes), what survives a restart (a new
instance on the same directory), exclusive reservations, and the (in_reply_to, resolution_id) key."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ma2h.journal import (
    FileDedupStore,
    FileSubmitJournal,
    MemoryDedupStore,
    MemorySubmitJournal,
    response_dedup_key,
)


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_save_complete_pending_sent(kind: str, tmp_dir: str) -> None:
    journal = MemorySubmitJournal() if kind == "memory" else FileSubmitJournal(os.path.join(tmp_dir, "j"))
    assert journal.pending() == [] and journal.load("k1") is None and journal.ack("k1") is None
    journal.save("k2", '{"b":2}')
    journal.save("k1", '{"a":1}')
    assert sorted(journal.pending()) == ["k1", "k2"]
    journal.complete("k1", {"id": "msg_1", "status": "pending"})
    journal.complete("never-saved", {"id": "msg_X", "status": "pending"})  # ignored
    assert journal.pending() == ["k2"]
    assert journal.load("k1") == '{"a":1}' and journal.ack("k1") == {"id": "msg_1", "status": "pending"}
    assert journal.sent("msg_1") and not journal.sent("msg_X") and not journal.sent("msg_2")


def test_the_file_journal_survives_a_restart_in_the_ts_format(tmp_dir: str) -> None:
    directory = os.path.join(tmp_dir, "journal")
    first = FileSubmitJournal(directory)
    first.save("idem/ü", '{"title":"é"}')
    first.save("idem-2", "{}")
    first.complete("idem-2", {"id": "msg_2", "status": "pending"})
    # a process exit: a new instance on the same directory sees the same journal
    second = FileSubmitJournal(directory)
    assert second.pending() == ["idem/ü"] and second.load("idem/ü") == '{"title":"é"}'
    assert second.sent("msg_2")
    entry = Path(directory) / (hashlib.sha256("idem/ü".encode()).hexdigest() + ".json")
    assert entry.read_text(encoding="utf-8") == '{"key":"idem/ü","bytes":"{\\"title\\":\\"é\\"}"}'
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert (Path(directory) / "sent" / hashlib.sha256(b"msg_2").hexdigest()).exists()
    assert not [n for n in os.listdir(directory) if n.endswith(".tmp")]


def test_sent_finds_an_unindexed_ack_and_indexes_it(tmp_dir: str) -> None:
    journal = FileSubmitJournal(tmp_dir)
    journal.save("k", "{}")
    journal.complete("k", {"id": "msg_old", "status": "pending"})
    index = Path(tmp_dir) / "sent" / hashlib.sha256(b"msg_old").hexdigest()
    index.unlink()  # a journal written before the index
    assert journal.sent("msg_old") and index.exists()


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_dedup_reserve_release_has(kind: str, tmp_dir: str) -> None:
    store = MemoryDedupStore() if kind == "memory" else FileDedupStore(tmp_dir)
    key = response_dedup_key({"in_reply_to": "msg_1", "resolution_id": "res_1"})
    assert not store.has(key)
    assert store.reserve(key) and store.has(key)
    assert not store.reserve(key)  # a redelivery is dropped
    store.release(key)  # the work failed: a redelivery is acted on
    assert not store.has(key) and store.reserve(key)


def test_file_dedup_reservations_are_exclusive_between_racers_and_survive_a_restart(tmp_dir: str) -> None:
    key = response_dedup_key({"in_reply_to": "msg_race", "resolution_id": "res_race"})
    stores = [FileDedupStore(tmp_dir) for _ in range(8)]
    with ThreadPoolExecutor(8) as pool:
        wins = list(pool.map(lambda s: s.reserve(key), stores))
    assert wins.count(True) == 1
    assert FileDedupStore(tmp_dir).has(key)
    content = json.loads((Path(tmp_dir) / hashlib.sha256(key.encode()).hexdigest()).read_text())
    assert set(content) == {"reserved_at"}


def test_response_dedup_key_is_the_ts_string() -> None:
    assert response_dedup_key({"in_reply_to": "msg_1", "resolution_id": "res_1"}) == 'response:["msg_1","res_1"]'
    assert response_dedup_key({"in_reply_to": 'a"b', "resolution_id": "é\n"}) == 'response:["a\\"b","é\\n"]'
    # the pair is unambiguous whatever the ids hold
    assert response_dedup_key({"in_reply_to": "a,b", "resolution_id": "c"}) != response_dedup_key(
        {"in_reply_to": "a", "resolution_id": "b,c"}
    )
