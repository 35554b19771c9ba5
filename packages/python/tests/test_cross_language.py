"""Cross-language: the Python core and the TypeScript SDK (packages/agent, packages/protocol, run
from source with tsx by tests/node/cross.ts) accept each other's work — a push signed by either is
verified by the other (hmac and ed25519, a tampered twin refused by both), a submit journal written
by either is read by the other, state sealed by either opens in the other, and the §6 dedup keys
and FileDedupStore reservations are the same."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from typing import Any

import pytest
from conftest import run_tsx
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from ma2h._keys import b64u
from ma2h.errors import StateIntegrityError, VerificationError
from ma2h.journal import FileDedupStore, FileSubmitJournal, response_dedup_key
from ma2h.push import Ed25519SigningKey, HmacKey, MemoryReplayStore, PublishedKeys, sign_response_push, verify_push
from ma2h.state import open_state, seal_state

NOW = datetime(2026, 12, 7, 12, 0, 0, tzinfo=timezone.utc)
CALLBACK = "https://agent.example/cb?tenant=ü&x=1"
SECRET = "whsec-cross-language-0123456789abcdef"
STATE_KEY = "a-state-key-of-at-least-32-bytes-0123"
BODY: dict[str, Any] = {
    "ma2h_version": "0.6",
    "in_reply_to": "msg_01CROSS",
    "resolution_id": "res_01CROSS",
    "agent": {"id": "deploybot/dev-team", "run_id": "run_1"},
    "resolution": "answered",
    "response": {
        "value": {"amount": 1e21, "ratio": 0.1, "big": 12345678901234567890, "note": "é\u2028😀"},
        "edited": False,
        "actor": "human:alice",
        "resolved_at": "2026-12-07T11:59:58.123Z",
    },
    "state": {"b": [1.5e-7, -0.0], "a": None},
}
STATE_VALUE = {"step": 2, "cart": ["x", "ÿ"], "price": 19.99, "nested": {"ok": True, "n": None}}


def _seed(private: Ed25519PrivateKey) -> bytes:
    return private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())


def _jwk(private: Ed25519PrivateKey, kid: str) -> dict[str, str]:
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return {"kty": "OKP", "crv": "Ed25519", "x": b64u(public), "kid": kid, "use": "sig", "alg": "EdDSA"}


@pytest.fixture(scope="module")
def exchange(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("cross")
    py_key = Ed25519PrivateKey.generate()
    ts_key = Ed25519PrivateKey.generate()
    jwks = {"keys": [_jwk(py_key, "py"), _jwk(ts_key, "ts")]}
    body_text = json.dumps(BODY, ensure_ascii=False)
    tampered = json.loads(body_text)
    tampered["response"]["value"]["amount"] = 1e22
    hmac_header = sign_response_push(BODY, callback_url=CALLBACK, key=HmacKey(SECRET), now=NOW)
    ed_header = sign_response_push(BODY, callback_url=CALLBACK, key=Ed25519SigningKey(_seed(py_key)), now=NOW)
    pushes = [
        {"name": "hmac", "header": hmac_header, "body": body_text, "scheme": "hmac"},
        {"name": "ed25519", "header": ed_header, "body": body_text, "scheme": "ed25519"},
        {"name": "hmac-tampered", "header": sign_response_push(BODY, callback_url=CALLBACK, key=HmacKey(SECRET), now=NOW), "body": json.dumps(tampered), "scheme": "hmac"},
        {"name": "hmac-replayed", "header": hmac_header, "body": body_text, "scheme": "hmac"},
    ]
    py_journal_dir = str(root / "py-journal")
    journal = FileSubmitJournal(py_journal_dir)
    journal.save("idem-a", json.dumps({"type": "ask", "title": "Ship? ✓", "state": {"n": 2}}, ensure_ascii=False))
    journal.complete("idem-a", {"id": "msg_PYDONE", "status": "pending", "nested": {"x": [1, 2]}})
    journal.save("idem-b ünïcode", '{"type":"task"}')
    journal.save("idem-c", '{"type":"notify"}')
    pairs = [["msg_1", "res_1"], ['m"sg\\2', "rés_€😀"]]
    request = {
        "now": int(NOW.timestamp()),
        "callbackUrl": CALLBACK,
        "secret": SECRET,
        "body": BODY,
        "edSeed": b64u(_seed(ts_key)),
        "jwks": jwks,
        "pythonPushes": pushes,
        "tsJournalDir": str(root / "ts-journal"),
        "pythonJournalDir": py_journal_dir,
        "pythonJournalKeys": ["idem-a", "idem-b ünïcode", "idem-c", "idem-missing"],
        "pythonSentIds": ["msg_PYDONE", "msg_NEVER"],
        "stateKey": STATE_KEY,
        "stateValue": STATE_VALUE,
        "pythonSealed": seal_state(STATE_VALUE, STATE_KEY),
        "dedupDir": str(root / "dedup"),
        "dedupPairs": pairs,
    }
    answer = run_tsx("cross.ts", request)
    return {"answer": answer, "request": request, "jwks": jwks}


def _verify(header: str, body: str, **options: Any) -> str:
    try:
        verify_push({"MA2H-Signature": header}, body, callback_url=CALLBACK, now=lambda: NOW, replay_store=MemoryReplayStore(), **options)
    except VerificationError as e:
        return e.reason
    return "accepted"


def test_pushes_signed_by_python_are_verified_by_typescript(exchange: dict[str, Any]) -> None:
    assert exchange["answer"]["verdicts"] == {
        "hmac": "accepted",
        "ed25519": "accepted",
        "hmac-tampered": "signature_mismatch",
        "hmac-replayed": "replayed",
    }


def test_pushes_signed_by_typescript_are_verified_by_python(exchange: dict[str, Any]) -> None:
    answer = exchange["answer"]
    body = json.dumps(BODY)
    assert _verify(answer["hmacHeader"], body, hmac_secret=SECRET) == "accepted"
    keys = PublishedKeys("https://hub.example", fetch=lambda url: (200, json.dumps(exchange["jwks"] if url.endswith("-keys") else {}).encode()))
    assert _verify(answer["edHeader"], body, hub_keys=keys) == "accepted"
    assert _verify(answer["edHeader"], body, hub_keys=keys, key_id="py") == "unexpected_key"
    tampered = json.loads(body)
    tampered["state"]["b"][0] = 1.6e-7
    assert _verify(answer["hmacHeader"], json.dumps(tampered), hmac_secret=SECRET) == "signature_mismatch"
    assert _verify(answer["edHeader"], json.dumps(tampered), hub_keys=keys) == "signature_mismatch"


def test_a_journal_written_by_typescript_is_read_by_python(exchange: dict[str, Any]) -> None:
    journal = FileSubmitJournal(exchange["request"]["tsJournalDir"])
    assert json.loads(journal.load("idem-done") or "") == {"type": "ask", "title": "Deploy? ✓", "state": {"n": 1}}
    assert journal.ack("idem-done") == {"id": "msg_TSDONE", "status": "pending"}
    assert journal.pending() == ["idem-pending ünïcode"]
    assert journal.sent("msg_TSDONE") and not journal.sent("msg_NEVER")
    assert journal.load("idem-missing") is None
    # and Python's writes on top of it stay readable for both
    journal.complete("idem-pending ünïcode", {"id": "msg_TSPENDING", "status": "delivered"})
    assert journal.pending() == [] and journal.sent("msg_TSPENDING")


def test_a_journal_written_by_python_is_read_by_typescript(exchange: dict[str, Any]) -> None:
    seen = exchange["answer"]["pythonJournal"]
    assert seen["loads"] == {
        "idem-a": json.dumps({"type": "ask", "title": "Ship? ✓", "state": {"n": 2}}, ensure_ascii=False),
        "idem-b ünïcode": '{"type":"task"}',
        "idem-c": '{"type":"notify"}',
        "idem-missing": None,
    }
    assert seen["acks"]["idem-a"] == {"id": "msg_PYDONE", "status": "pending", "nested": {"x": [1, 2]}}
    assert seen["acks"]["idem-c"] is None
    assert seen["pending"] == ["idem-b ünïcode", "idem-c"]
    assert seen["sent"] == {"msg_PYDONE": True, "msg_NEVER": False}
    # byte-identical files: what TS would have written for the same entry
    import hashlib

    name = hashlib.sha256(b"idem-c").hexdigest() + ".json"
    with open(os.path.join(exchange["request"]["pythonJournalDir"], name), encoding="utf-8") as f:
        assert f.read() == '{"key":"idem-c","bytes":"{\\"type\\":\\"notify\\"}"}'


def test_state_sealed_by_either_opens_in_the_other(exchange: dict[str, Any]) -> None:
    answer = exchange["answer"]
    assert answer["pythonOpened"] == STATE_VALUE
    assert answer["wrongKey"] == "state_integrity"
    assert open_state(answer["tsSealed"], STATE_KEY) == STATE_VALUE
    with pytest.raises(StateIntegrityError):
        open_state(answer["tsSealed"], STATE_KEY + "-other")


def test_dedup_keys_and_reservations_are_shared(exchange: dict[str, Any]) -> None:
    answer = exchange["answer"]
    pairs = exchange["request"]["dedupPairs"]
    assert answer["dedupKeys"] == [response_dedup_key({"in_reply_to": a, "resolution_id": b}) for a, b in pairs]
    assert answer["reserved"] == [True, True]
    store = FileDedupStore(exchange["request"]["dedupDir"])
    for key in answer["dedupKeys"]:
        assert store.has(key)
        assert not store.reserve(key)  # already acted on by the TypeScript side
