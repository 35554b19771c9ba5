"""The conformance fixtures the TypeScript SDK reproduces, reproduced by the Python core, read in
place from ../shared/ma2h: verify_push reproduces dp-001 (and refuses its replay), dp-003's tampered
twin, dp-004's numeric digest and dp-025's `v1` boundary; verify_directive reproduces dp-005 and
refuses dp-006's re-addressed twin; verify_entry reproduces the §9.8 entry fixtures dp-011…dp-018;
and the §6 Response / inbound-entry shape checks agree with every sv-* vector aimed at
response.schema.json, inbound-message.schema.json or message.schema.json."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from conftest import VECTORS, at, vector

from ma2h import _shape
from ma2h.directive import (
    inbound_signed_context,
    message_signed_context,
    receipt_signed_context,
    response_entry_signed_context,
    verify_directive,
    verify_entry,
)
from ma2h.errors import VerificationError
from ma2h.jcs import canonicalize_str
from ma2h.push import (
    HmacKey,
    MemoryReplayStore,
    format_signature_header,
    response_signed_context,
    sign_context,
    verify_push,
)
from ma2h.response import response_problem

dp001 = vector("dp-001-signature")
dp003 = vector("dp-003-payload-tamper-invalid")
dp004 = vector("dp-004-numeric-payload")
dp005 = vector("dp-005-inbound-signature")
dp006 = vector("dp-006-inbound-tamper-invalid")
dp025 = vector("dp-025-mac-well-formedness")


def header_value(full: str) -> str:
    return full.removeprefix("MA2H-Signature:").strip()


def body_from(ctx: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """A §6 Response carrying a fixture context's bound fields and the given payload."""
    body: dict[str, Any] = {
        "ma2h_version": ctx["ma2h_version"],
        "in_reply_to": ctx["in_reply_to"],
        "resolution_id": ctx["resolution_id"],
        "agent": {"id": "deploybot/dev-team", "run_id": "run_01"},
        "resolution": ctx["resolution"],
    }
    for key in ("response", "state"):
        if key in payload:
            body[key] = payload[key]
    return body


def outcome(run: Callable[[], object]) -> str:
    try:
        run()
    except VerificationError as e:
        return e.reason
    return "accepted"


def push_options(store: MemoryReplayStore | None = None, **extra: Any) -> dict[str, Any]:
    ctx = dp001["signed_context"]
    options: dict[str, Any] = {
        "callback_url": ctx["callback_url"],
        "hmac_secret": dp001["test_key"],
        "now": lambda: at(ctx["t"]),
        "replay_store": store or MemoryReplayStore(),
    }
    options.update(extra)
    return options


def test_dp001_context_and_v1_reproduced() -> None:
    ctx = dp001["signed_context"]
    body = body_from(ctx, dp001["payload"])
    rebuilt = response_signed_context(body, ctx["callback_url"], ctx["jti"], int(ctx["t"]))
    assert rebuilt == ctx
    assert canonicalize_str(rebuilt) == dp001["canonical_jcs"]
    assert sign_context(rebuilt, HmacKey(dp001["test_key"])) == dp001["v1"]


def test_dp001_verifies_returns_the_response_and_refuses_its_replay() -> None:
    ctx = dp001["signed_context"]
    body = json.dumps(body_from(ctx, dp001["payload"]))
    store = MemoryReplayStore()
    got = verify_push({"MA2H-Signature": header_value(dp001["header"])}, body, **push_options(store))
    assert got == json.loads(body)
    again = outcome(lambda: verify_push({"ma2h-signature": header_value(dp001["header"])}, body, **push_options(store)))
    assert again == "replayed"


def test_dp001_header_forms_byte_body_and_rotation() -> None:
    ctx = dp001["signed_context"]
    body = json.dumps(body_from(ctx, dp001["payload"])).encode("utf-8")
    pairs = [(b"content-type", b"application/json"), (b"MA2H-Signature", header_value(dp001["header"]).encode())]
    got = verify_push(pairs, body, **push_options(hmac_secret=["the-new-secret", dp001["test_key"]]))
    assert got["in_reply_to"] == ctx["in_reply_to"]


def test_dp003_tampered_twin_is_refused_and_does_not_poison_the_store() -> None:
    c = dp003["signed_context"]
    header = {"ma2h-signature": format_signature_header(int(c["t"]), c["jti"], dp003["v1"])}
    opts = {"callback_url": c["callback_url"], "hmac_secret": dp003["test_key"], "now": lambda: at(c["t"])}
    honest = json.dumps(body_from(c, dp003["honest_payload"]))
    tampered = json.dumps(body_from(c, dp003["tampered_payload"]))
    store = MemoryReplayStore()
    assert outcome(lambda: verify_push(header, tampered, replay_store=store, **opts)) == "signature_mismatch"
    assert outcome(lambda: verify_push(header, honest, replay_store=store, **opts)) == "accepted"


def test_dp004_numeric_payload_digest_is_recomputed_byte_exact() -> None:
    ctx = dp001["signed_context"]
    context = {**ctx, "payload_sha256": dp004["payload_sha256"], "resolved_at": dp004["payload"]["response"]["resolved_at"]}
    v1 = sign_context(context, HmacKey(dp001["test_key"]))
    header = {"ma2h-signature": format_signature_header(int(ctx["t"]), ctx["jti"], v1)}
    body = body_from(ctx, dp004["payload"])
    assert outcome(lambda: verify_push(header, json.dumps(body), **push_options())) == "accepted"
    body["response"]["value"]["big"] = 1e20  # one number changed
    assert outcome(lambda: verify_push(header, json.dumps(body), **push_options())) == "signature_mismatch"


def test_dp025_ill_formed_v1_is_malformed_mac_and_well_formed_reaches_the_signature_check() -> None:
    c = dp025["signed_context"]
    body = json.dumps(body_from(c, dp001["payload"]))
    assert len(dp025["cases"]) >= 5
    for case in dp025["cases"]:
        header = {"ma2h-signature": f"t={c['t']},jti={c['jti']},v1={case['value']}"}
        reason = outcome(
            lambda: verify_push(
                header, body, callback_url=c["callback_url"], hmac_secret=dp025["test_key"], now=lambda: at(c["t"])
            )
        )
        assert reason == ("signature_mismatch" if case["expect"] == "well-formed" else "malformed_mac"), case["value"]
    padded = {"ma2h-signature": header_value(dp001["header"]) + "="}
    ctx = dp001["signed_context"]
    assert outcome(lambda: verify_push(padded, json.dumps(body_from(ctx, dp001["payload"])), **push_options())) == "accepted"


def directive_options(agent_id: str = "deploybot/dev-team") -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "hmac_secret": dp005["test_key"],
        "now": lambda: at(dp005["signed_context"]["t"]),
        "replay_store": MemoryReplayStore(),
    }


def test_dp005_directive_verifies_with_exactly_its_known_fields_and_its_replay_is_refused() -> None:
    assert inbound_signed_context(dp005["directive"], dp005["signed_context"]["jti"], int(dp005["signed_context"]["t"])) == dp005["signed_context"]
    assert canonicalize_str(dp005["signed_context"]) == dp005["canonical_jcs"]
    opts = directive_options()
    entry = {"directive": dp005["directive"], "signature": dp005["header"]}
    assert verify_directive(entry, **opts) == dp005["directive"]
    assert outcome(lambda: verify_directive(entry, **opts)) == "replayed"
    injected = {"directive": {**dp005["directive"], "x-unsigned": "drop me"}, "signature": dp005["header"]}
    assert "x-unsigned" not in verify_directive(injected, **directive_options())
    smuggled = {"directive": {**dp005["directive"], "state": {"evil": True}}, "signature": dp005["header"]}
    assert outcome(lambda: verify_directive(smuggled, **directive_options())) == "invalid_shape"


def test_dp006_readdressed_twin_is_a_mismatch_and_the_honest_one_is_not_another_agents() -> None:
    signature = f"MA2H-Signature: t={dp006['t']},jti={dp006['jti']},v1={dp006['v1']}"
    honest = {"directive": dp006["honest_directive"], "signature": signature}
    tampered = {"directive": dp006["tampered_directive"], "signature": signature}
    assert outcome(lambda: verify_directive(honest, **directive_options())) == "accepted"
    for agent in ["deploybot/dev-team", "victim/other-bot"]:
        assert outcome(lambda: verify_directive(tampered, **directive_options(agent))) == "signature_mismatch"
    assert outcome(lambda: verify_directive(honest, **directive_options("victim/other-bot"))) == "wrong_addressee"


# ─── §9.8 drained entries ─────────────────────────────────────────────────────────────────────────

dp011 = vector("dp-011-entry-message-signature")
dp012 = vector("dp-012-entry-message-tamper-invalid")
dp013 = vector("dp-013-entry-response-signature")
dp014 = vector("dp-014-entry-response-cross-session-replay-invalid")
dp015 = vector("dp-015-entry-response-null-resolved-at-signature")
dp016 = vector("dp-016-entry-receipt-signature")
dp017 = vector("dp-017-entry-receipt-tamper-invalid")
dp018 = vector("dp-018-entry-redelivery-fresh-signature")

#: dp-011's recipient: deploybot's session sess_01J5WRK0007 (the entry's `to`).
RECIPIENT = {"agent_id": "deploybot/dev-team", "session": "sess_01J5WRK0007"}


def entry_options(identity: dict[str, str], t: str | int, key: str = dp011["test_key"]) -> dict[str, Any]:
    return {
        "agent_id": identity["agent_id"],
        "session": identity["session"],
        "hmac_secret": key,
        "now": lambda: at(t),
        "replay_store": MemoryReplayStore(),
    }


def test_dp011_message_entry_context_and_verification() -> None:
    entry, ctx = dp011["entry"], dp011["signed_context"]
    assert message_signed_context(entry, ctx["jti"], int(ctx["t"])) == ctx
    assert sign_context(ctx, HmacKey(dp011["test_key"])) == dp011["v1"]
    got = verify_entry({"message": entry, "signature": dp011["header"]}, **entry_options(RECIPIENT, ctx["t"]))
    assert got.kind == "message" and got.ack_key == entry["id"] and got.dedup_key == entry["id"]
    assert got.message == entry
    other = {"agent_id": "deploybot/dev-team", "session": "sess_01J5OTHER"}
    assert outcome(lambda: verify_entry({"message": entry, "signature": dp011["header"]}, **entry_options(other, ctx["t"]))) == "wrong_addressee"


def test_dp012_tampered_message_entries_are_refused_after_the_honest_control() -> None:
    signature = f"MA2H-Signature: t={dp012['t']},jti={dp012['jti']},v1={dp012['v1']}"
    honest = {"message": dp012["honest_entry"], "signature": signature}
    assert outcome(lambda: verify_entry(honest, **entry_options(RECIPIENT, dp012["t"]))) == "accepted"
    assert len(dp012["tampered_entries"]) >= 3
    for case in dp012["tampered_entries"]:
        tampered = {"message": case["entry"], "signature": signature}
        assert outcome(lambda: verify_entry(tampered, **entry_options(RECIPIENT, dp012["t"]))) == "signature_mismatch", case["reason"]


@pytest.mark.parametrize("fixture", [dp013, dp015], ids=["dp-013", "dp-015"])
def test_response_entries_reproduced(fixture: dict[str, Any]) -> None:
    ident, ctx, entry = fixture["drain_identity"], fixture["signed_context"], fixture["entry"]
    rebuilt = response_entry_signed_context(entry, ident["reconstructed_to"], ctx["jti"], int(ctx["t"]))
    assert rebuilt == ctx and canonicalize_str(rebuilt) == fixture["canonical_jcs"]
    assert sign_context(ctx, HmacKey(fixture["test_key"])) == fixture["v1"]
    got = verify_entry({"response": entry, "signature": fixture["header"]}, **entry_options(ident, ctx["t"]))
    assert got.kind == "response" and got.response == entry
    assert got.ack_key == entry["resolution_id"]
    assert got.dedup_key == "response:" + json.dumps([entry["in_reply_to"], entry["resolution_id"]], separators=(",", ":"))


def test_dp014_cross_session_replay_and_tamper_are_refused() -> None:
    signature = f"MA2H-Signature: t={dp014['t']},jti={dp014['jti']},v1={dp014['v1']}"
    honest = {"response": dp014["honest_entry"], "signature": signature}
    assert outcome(lambda: verify_entry(honest, **entry_options(dp014["honest_drain_identity"], dp014["t"]))) == "accepted"
    assert outcome(lambda: verify_entry(honest, **entry_options(dp014["replay_drain_identity"], dp014["t"]))) == "signature_mismatch"
    for case in dp014["tampered_entries"]:
        tampered = {"response": case["entry"], "signature": signature}
        assert outcome(lambda: verify_entry(tampered, **entry_options(dp014["honest_drain_identity"], dp014["t"]))) == "signature_mismatch"


def test_dp016_receipt_entry_reproduced_and_dp017_tampers_refused() -> None:
    ident, ctx, entry = dp016["drain_identity"], dp016["signed_context"], dp016["entry"]
    assert receipt_signed_context(entry, ident["reconstructed_to"], ctx["jti"], int(ctx["t"])) == ctx
    assert sign_context(ctx, HmacKey(dp016["test_key"])) == dp016["v1"]
    got = verify_entry({"receipt": entry, "signature": dp016["header"]}, **entry_options(ident, ctx["t"]))
    assert got.kind == "receipt" and got.ack_key == entry["id"]
    assert got.dedup_key == "receipt:" + json.dumps([entry["in_reply_to"], entry["event"]], separators=(",", ":"))

    signature = f"MA2H-Signature: t={dp017['t']},jti={dp017['jti']},v1={dp017['v1']}"
    honest = {"receipt": dp017["honest_entry"], "signature": signature}
    assert outcome(lambda: verify_entry(honest, **entry_options(dp017["honest_drain_identity"], dp017["t"]))) == "accepted"
    assert outcome(lambda: verify_entry(honest, **entry_options(dp017["replay_drain_identity"], dp017["t"]))) == "signature_mismatch"
    for case in dp017["tampered_entries"]:
        tampered = {"receipt": case["entry"], "signature": signature}
        assert outcome(lambda: verify_entry(tampered, **entry_options(dp017["honest_drain_identity"], dp017["t"]))) == "signature_mismatch"


def test_dp018_each_delivery_has_its_own_signature_and_each_verifies_once() -> None:
    base = dp018["signed_context_base"]
    store = MemoryReplayStore()
    assert len(dp018["deliveries"]) >= 2
    for delivery in dp018["deliveries"]:
        ctx = message_signed_context(dp011["entry"], delivery["jti"], int(delivery["t"]))
        assert {k: v for k, v in ctx.items() if k in base} == base
        assert canonicalize_str(ctx) == delivery["canonical_jcs"]
        assert sign_context(ctx, HmacKey(dp018["test_key"])) == delivery["v1"]
        item = {"message": dp011["entry"], "signature": delivery["header"]}
        opts = {**entry_options(RECIPIENT, delivery["t"], dp018["test_key"]), "replay_store": store}
        assert outcome(lambda: verify_entry(item, **opts)) == "accepted"
        assert outcome(lambda: verify_entry(item, **opts)) == "replayed"


# ─── sv-* schema vectors for the shapes the core checks ─────────────────────────────────────────

def _inbound_entry_valid(value: object) -> bool:
    """inbound-message.schema.json's oneOf: exactly one of the four delivered kinds."""
    checks = [_shape.check_directive, _shape.check_message_entry, _shape.check_response_entry, _shape.check_receipt]
    return sum(1 for check in checks if _shape.problem_of(check, value) is None) == 1


CHECKS: dict[str, Callable[[object], bool]] = {
    "response.schema.json": lambda v: response_problem(v) is None,
    "inbound-message.schema.json": _inbound_entry_valid,
    # the envelope a delivered message entry carries (checked before an agent reads one)
    "message.schema.json": lambda v: _shape.problem_of(_shape.check_message, v) is None,
}
SV = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(VECTORS.glob("sv-*.json"))]


def _schema_of(target: str) -> str:
    for prefix in ("v0.5/", "v0.6/"):
        target = target.removeprefix(prefix)
    return target


COVERED = [v for v in SV if _schema_of(v["target"]) in CHECKS]


def test_sv_vectors_are_found_and_those_for_checked_shapes_selected() -> None:
    assert len(SV) > 60
    assert len(COVERED) >= 15
    # what the core checks on receipt: the §6 Response and the delivered inbound entries
    assert {_schema_of(v["target"]) for v in COVERED} == set(CHECKS)


@pytest.mark.parametrize("v", COVERED, ids=[v["id"] for v in COVERED])
def test_sv_vector(v: dict[str, Any]) -> None:
    assert CHECKS[_schema_of(v["target"])](copy.deepcopy(v["input"])) is (v["expect"] == "valid")


def test_verify_entry_routes_directives_and_refuses_malformed_items() -> None:
    from ma2h.directive import sign_directive_delivery

    opts = entry_options(RECIPIENT, dp005["signed_context"]["t"], dp005["test_key"])
    item = {"directive": dp005["directive"], "signature": dp005["header"]}
    got = verify_entry(item, **opts)
    assert got.kind == "directive" and got.directive == dp005["directive"] and got.ack_key == dp005["directive"]["id"]
    assert outcome(lambda: verify_entry({"directive": dp005["directive"]}, **entry_options(RECIPIENT, dp005["signed_context"]["t"], dp005["test_key"]))) == "missing_header"
    both = {"directive": dp005["directive"], "receipt": dp016["entry"], "signature": dp005["header"]}
    assert outcome(lambda: verify_entry(both, **opts)) == "invalid_shape"
    assert outcome(lambda: verify_entry(["not", "an", "item"], **opts)) == "invalid_shape"
    with pytest.raises(TypeError):
        verify_entry(item, agent_id="agent:deploybot/dev-team", session="sess_1", hmac_secret="k")
    with pytest.raises(TypeError):
        verify_entry(item, agent_id="deploybot/dev-team", session="nope", hmac_secret="k")

    # a session-qualified directive is ours only when we name that session
    directive = {**dp005["directive"], "ma2h_version": "0.5", "to": "agent:deploybot/dev-team#sess_01J5WRK0007"}
    now = at(dp005["signed_context"]["t"])
    signature = sign_directive_delivery(directive, key=HmacKey(dp005["test_key"]), now=now, jti="jti_SESSDIR1")
    entry = {"directive": directive, "signature": signature}
    assert outcome(lambda: verify_directive(entry, **directive_options())) == "wrong_addressee"
    assert outcome(lambda: verify_directive(entry, session="sess_01J5WRK0007", **directive_options())) == "accepted"
    assert outcome(lambda: verify_directive(entry, session="sess_OTHER", **directive_options())) == "wrong_addressee"


def test_unsigned_injections_into_a_message_entry_are_refused_by_shape() -> None:
    entry, ctx = dp011["entry"], dp011["signed_context"]
    for injected in [{"state": {"resume": "evil"}}, {"client_ref": "x"}, {"x-unknown": 1}]:
        item = {"message": {**entry, **injected}, "signature": dp011["header"]}
        reason = outcome(lambda: verify_entry(item, **entry_options(RECIPIENT, ctx["t"])))
        if "x-unknown" in injected:
            assert reason == "accepted"  # open schema: kept out of what is returned instead
            got = verify_entry(item, **entry_options(RECIPIENT, ctx["t"]))
            assert got.message is not None and "x-unknown" not in got.message
        else:
            assert reason == "invalid_shape", injected
