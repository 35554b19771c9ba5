"""The typed §6 Response matches schema/v0.6/response.schema.json field for field (required and
optional keys at every level, the resolution enum), the delivered Directive type matches
inbound-message.schema.json's directive, and parse_response applies the schema's conditionals."""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest
from conftest import SCHEMAS

from ma2h.directive import Directive
from ma2h.response import (
    RESOLUTIONS,
    ChecklistItem,
    Resolution,
    Response,
    ResponseAgent,
    ResponseDetail,
    is_human_answer,
    parse_response,
)

SCHEMA = json.loads((SCHEMAS / "response.schema.json").read_text(encoding="utf-8"))
INBOUND = json.loads((SCHEMAS / "inbound-message.schema.json").read_text(encoding="utf-8"))


def keys_of(typed: Any) -> tuple[set[str], set[str]]:
    return set(typed.__required_keys__), set(typed.__optional_keys__)


@pytest.mark.parametrize(
    "typed,schema",
    [
        (Response, SCHEMA),
        (ResponseAgent, SCHEMA["properties"]["agent"]),
        (ResponseDetail, SCHEMA["properties"]["response"]),
        (ChecklistItem, SCHEMA["properties"]["response"]["properties"]["checklist"]["items"]),
        (Directive, INBOUND["$defs"]["directive"]),
    ],
    ids=["Response", "ResponseAgent", "ResponseDetail", "ChecklistItem", "Directive"],
)
def test_typed_fields_match_the_schema(typed: Any, schema: dict[str, Any]) -> None:
    required, optional = keys_of(typed)
    assert required == set(schema["required"])
    assert required | optional == set(schema["properties"])


def test_resolution_enum_matches() -> None:
    enum = SCHEMA["properties"]["resolution"]["enum"]
    assert list(typing.get_args(Resolution)) == enum == list(RESOLUTIONS)


def base(**changes: Any) -> dict[str, Any]:
    r: dict[str, Any] = {
        "ma2h_version": "0.6",
        "in_reply_to": "msg_1",
        "resolution_id": "res_1",
        "agent": {"id": "a", "run_id": "r"},
        "resolution": "completed",
        "response": {"actor": "human:bob", "resolved_at": "2026-12-07T10:00:00+01:00", "checklist": [{"text": "t", "done": True}]},
    }
    r.update(changes)
    return r


@pytest.mark.parametrize(
    "value,problem",
    [
        (base(), None),
        (base(extra_field={"unknown": "kept"}), None),
        (base(resolution="answered"), "response.checklist: not allowed"),
        (base(resolution_id="opaque"), "resolution_id: must match ^res_"),
        (base(ma2h_version="0.4", resolution_id="opaque"), None),
        (base(response={"actor": "human:bob", "resolved_at": "2026-12-07T10:00:00Z", "checklist": [{"text": "t"}]}), "done: is required"),
        (base(defaulted=True), "resolution: must be expired"),
        (base(defaulted=True, resolution="expired", response={"actor": "human:x", "resolved_at": "2026-12-07T10:00:00Z"}), "response.actor: must be system:default_on_expire"),
        (base(response={"actor": "robot:x", "resolved_at": "2026-12-07T10:00:00Z"}), "response.actor"),
        (base(response={"actor": "human:x", "resolved_at": "2026-02-30T10:00:00Z"}), "resolved_at"),
        (base(response={"actor": "human:x", "resolved_at": "2026-12-07T10:00:00Z", "value": 3}), "value"),
        (base(ma2h_version="1.0"), "ma2h_version"),
        (base(agent={"id": "a"}), "agent.run_id: is required"),
        (base(state=[1]), "state: must be an object"),
    ],
)
def test_parse_response_rules(value: dict[str, Any], problem: str | None) -> None:
    if problem is None:
        assert parse_response(value) is value
    else:
        with pytest.raises(ValueError, match=problem.replace("^", "\\^").replace(".", "\\.")):
            parse_response(value)


def test_is_human_answer_reads_only_the_attested_actor() -> None:
    assert is_human_answer(parse_response(base()))
    machine = base(response={"actor": "system:rule/r1", "resolved_at": "2026-12-07T10:00:00Z"})
    assert not is_human_answer(parse_response(machine))
    no_detail = base()
    del no_detail["response"]
    assert not is_human_answer(parse_response(no_detail))
