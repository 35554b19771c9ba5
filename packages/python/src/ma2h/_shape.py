"""Shape checks for what the Hub delivers, mirroring schema/v0.6 (response, inbound-message) as
``@ma2h/protocol``'s zod mirrors do. Each ``*_problem`` returns ``"<path>: <problem>"`` for the first
rule broken, or ``None``. Private: the public entry points are ``parse_response`` and the verifiers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping

VERSION = re.compile(r"0\.(0|[1-9][0-9]*)")
V04 = re.compile(r"0\.([4-9]|[1-9][0-9]+)")
V05 = re.compile(r"0\.([5-9]|[1-9][0-9]+)")
ADDRESS = re.compile(r"agent:[^#]+(#sess_.+)?", re.S)
ACTOR = re.compile(r"(human|agent|system):.+", re.S)
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt\s]([0-9]{2}):([0-9]{2}):([0-9]{2}(?:\.[0-9]+)?)"
    r"(?:[Zz]|([+-])([0-9]{2})(?::?([0-9]{2}))?)"
)
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*:[^\s]*")


class Problem(Exception):
    """A shape rule broken at ``path``."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


def full(pattern: re.Pattern[str], value: object) -> bool:
    return isinstance(value, str) and pattern.fullmatch(value) is not None


def is_v05(value: object) -> bool:
    return full(V05, value)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28
    return 30 if month in (4, 6, 9, 11) else 31


def is_date_time(value: object) -> bool:
    """RFC 3339 date-time, with the leap-second rule of the reference validator."""
    if not isinstance(value, str):
        return False
    m = _DATE_TIME.fullmatch(value)
    if m is None:
        return False
    year, month, day, hour, minute = (int(m.group(i)) for i in range(1, 6))
    second = float(m.group(6))
    sign = -1 if m.group(7) == "-" else 1
    off_h = int(m.group(8) or 0)
    off_m = int(m.group(9) or 0)
    if month < 1 or month > 12 or day < 1 or day > _days_in_month(year, month):
        return False
    if off_h > 23 or off_m > 59:
        return False
    if hour > 23 or minute > 59 or second >= 60:
        utc_minute = minute - sign * off_m
        utc_hour = hour - sign * off_h - (1 if utc_minute < 0 else 0)
        last_minute = utc_hour in (23, -1) and utc_minute in (59, -1)
        if not last_minute or second >= 61:
            return False
    return True


def code_points(value: str) -> int:
    return len(value)  # a Python str counts code points, as JSON Schema does


def obj(value: object, path: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise Problem(path, "must be an object")
    return value


def string(value: object, path: str, *, min_length: int = 0, max_length: int | None = None) -> str:
    if not isinstance(value, str):
        raise Problem(path, "is required" if value is None else "must be a string")
    if code_points(value) < min_length:
        raise Problem(path, f"must be at least {min_length} character(s)")
    if max_length is not None and code_points(value) > max_length:
        raise Problem(path, f"must be at most {max_length} characters")
    return value


def pattern(value: object, path: str, regex: re.Pattern[str]) -> str:
    text = string(value, path)
    if regex.fullmatch(text) is None:
        raise Problem(path, f"must match ^{regex.pattern}$")
    return text


def date_time(value: object, path: str) -> None:
    string(value, path)
    if not is_date_time(value):
        raise Problem(path, "must be an RFC 3339 date-time")


def boolean(value: object, path: str) -> None:
    if not isinstance(value, bool):
        raise Problem(path, "must be a boolean")


def string_list(value: object, path: str) -> None:
    if not isinstance(value, list):
        raise Problem(path, "must be an array")
    for i, item in enumerate(value):
        string(item, f"{path}[{i}]")


def required(m: Mapping[str, object], path: str, *names: str) -> None:
    for name in names:
        if name not in m:
            raise Problem(_join(path, name), "is required")


def forbidden(m: Mapping[str, object], path: str, names: tuple[str, ...], why: str) -> None:
    for name in names:
        if name in m:
            raise Problem(_join(path, name), f"not allowed {why}")


def _join(path: str, name: str) -> str:
    return name if path == "" else f"{path}.{name}"


def part(value: object, path: str) -> None:
    """message.schema.json#/$defs/part: a text, data or file part."""
    p = obj(value, path)
    kind = p.get("kind")
    if "metadata" in p:
        obj(p["metadata"], _join(path, "metadata"))
    if kind == "text":
        string(p.get("text"), _join(path, "text"))
    elif kind == "data":
        if "data" not in p:
            raise Problem(_join(path, "data"), "is required")
        obj(p["data"], _join(path, "data"))
    elif kind == "file":
        f = obj(p.get("file"), _join(path, "file"))
        uri = string(f.get("uri"), _join(path, "file.uri"))
        if _URI.fullmatch(uri) is None:
            raise Problem(_join(path, "file.uri"), "must be an absolute URI")
        for opt in ("name", "mime_type"):
            if opt in f:
                string(f[opt], _join(path, f"file.{opt}"))
    else:
        raise Problem(_join(path, "kind"), 'must be one of "text", "data", "file"')


def parts(value: object, path: str) -> None:
    if not isinstance(value, list):
        raise Problem(path, "must be an array")
    for i, item in enumerate(value):
        part(item, f"{path}[{i}]")


_RESOLUTIONS = ("answered", "declined", "cancelled", "expired", "completed", "dismissed")
_ASK_ONLY = ("answered", "declined", "cancelled")


def check_response(value: object, path: str = "") -> None:
    """response.schema.json (v0.6), conditionals included."""
    r = obj(value, path or "(body)")
    required(r, path, "ma2h_version", "in_reply_to", "resolution_id", "agent", "resolution")
    version = pattern(r["ma2h_version"], _join(path, "ma2h_version"), VERSION)
    string(r["in_reply_to"], _join(path, "in_reply_to"), min_length=1)
    resolution_id = string(r["resolution_id"], _join(path, "resolution_id"), min_length=1)
    agent = obj(r["agent"], _join(path, "agent"))
    required(agent, _join(path, "agent"), "id", "run_id")
    string(agent["id"], _join(path, "agent.id"), min_length=1)
    string(agent["run_id"], _join(path, "agent.run_id"), min_length=1)
    resolution = r["resolution"]
    if resolution not in _RESOLUTIONS:
        raise Problem(_join(path, "resolution"), "must be one of " + ", ".join(f'"{x}"' for x in _RESOLUTIONS))
    if "defaulted" in r:
        boolean(r["defaulted"], _join(path, "defaulted"))
    checklist: list[object] | None = None
    detail: Mapping[str, object] | None = None
    if "response" in r:
        rp = _join(path, "response")
        detail = obj(r["response"], rp)
        required(detail, rp, "actor", "resolved_at")
        if "value" in detail and not isinstance(detail["value"], (str, Mapping)):
            raise Problem(_join(rp, "value"), "must be a string or an object")
        if "edited" in detail:
            boolean(detail["edited"], _join(rp, "edited"))
        pattern(detail["actor"], _join(rp, "actor"), ACTOR)
        date_time(detail["resolved_at"], _join(rp, "resolved_at"))
        if "comment" in detail:
            string(detail["comment"], _join(rp, "comment"))
        if "checklist" in detail:
            raw = detail["checklist"]
            if not isinstance(raw, list):
                raise Problem(_join(rp, "checklist"), "must be an array")
            checklist = raw
            for i, item in enumerate(raw):
                ip = f"{_join(rp, 'checklist')}[{i}]"
                it = obj(item, ip)
                required(it, ip, "text")
                string(it["text"], _join(ip, "text"))
                if "done" in it:
                    boolean(it["done"], _join(ip, "done"))
    if "state" in r:
        obj(r["state"], _join(path, "state"))
    if resolution in _ASK_ONLY and checklist is not None:
        raise Problem(_join(path, "response.checklist"), f"not allowed on resolution {resolution}")
    if is_v05(version):
        if not resolution_id.startswith("res_") or len(resolution_id) < 5:
            raise Problem(_join(path, "resolution_id"), "must match ^res_ on ≥ 0.5 (§8.7.1)")
        for i, item in enumerate(checklist or []):
            if isinstance(item, Mapping) and "done" not in item:
                raise Problem(f"{_join(path, 'response.checklist')}[{i}].done", "is required on ≥ 0.5")
    if r.get("defaulted") is True:
        if resolution != "expired":
            raise Problem(_join(path, "resolution"), "must be expired when defaulted is true (§6)")
        if detail is not None and detail.get("actor") != "system:default_on_expire":
            raise Problem(_join(path, "response.actor"), "must be system:default_on_expire when defaulted is true (§6)")


_PRIORITIES = ("low", "normal", "high", "urgent")


def _directive_optional(d: Mapping[str, object], path: str) -> None:
    if "body" in d:
        string(d["body"], _join(path, "body"))
    if "priority" in d and d["priority"] not in _PRIORITIES:
        raise Problem(_join(path, "priority"), 'must be one of "low", "normal", "high", "urgent"')
    if "tags" in d:
        string_list(d["tags"], _join(path, "tags"))
    if "context" in d:
        parts(d["context"], _join(path, "context"))
    if "expires_at" in d:
        date_time(d["expires_at"], _join(path, "expires_at"))
    if "sensitive" in d:
        boolean(d["sensitive"], _join(path, "sensitive"))


def check_directive(value: object, path: str = "") -> None:
    """inbound-message.schema.json#/$defs/directive."""
    d = obj(value, path or "(body)")
    required(d, path, "ma2h_version", "type", "id", "from", "to", "created_at", "title")
    version = pattern(d["ma2h_version"], _join(path, "ma2h_version"), V04)
    if d["type"] != "directive":
        raise Problem(_join(path, "type"), 'must be "directive"')
    ident = string(d["id"], _join(path, "id"), min_length=1)
    pattern(d["from"], _join(path, "from"), re.compile(r"(human|system):.+", re.S))
    to = pattern(d["to"], _join(path, "to"), re.compile(r"agent:.+", re.S))
    date_time(d["created_at"], _join(path, "created_at"))
    string(d["title"], _join(path, "title"), min_length=1, max_length=200)
    _directive_optional(d, path)
    forbidden(d, path, ("request", "action", "state"), "on a directive (§13.1)")
    if is_v05(version):
        if ADDRESS.fullmatch(to) is None:
            raise Problem(_join(path, "to"), f"must match ^{ADDRESS.pattern}$ on ≥ 0.5 (§4, §13.2)")
        if not re.fullmatch(r"dir_.+", ident, re.S):
            raise Problem(_join(path, "id"), "must match ^dir_ on ≥ 0.5 (§8.7.1)")


_AGENT_ADDRESS = re.compile(r"agent:[^#]+(#sess_.+)?", re.S)
_SESSION_ADDRESS = re.compile(r"agent:[^#]+#sess_.+", re.S)


_RUNTIMES = ("github-actions", "cli", "cloud", "desktop", "openclaw", "other")
_RESOLVER = re.compile(r"(human|agent|system):.+", re.S)
_RESOLVER_V05 = re.compile(r"(human|system):.+|agent:[^#]+(#sess_.+)?", re.S)
_JSON_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")


def _resolvers(value: object, path: str, v05: bool) -> None:
    if not isinstance(value, list):
        raise Problem(path, "must be an array")
    for i, item in enumerate(value):
        pattern(item, f"{path}[{i}]", _RESOLVER_V05 if v05 else _RESOLVER)


def _callback(value: object, path: str) -> None:
    """message.schema.json#/$defs/callback."""
    c = obj(value, path)
    required(c, path, "mode")
    if c["mode"] not in ("push", "pull"):
        raise Problem(_join(path, "mode"), 'must be one of "push", "pull"')
    if "url" in c:
        if _URI.fullmatch(string(c["url"], _join(path, "url"))) is None:
            raise Problem(_join(path, "url"), "must be an absolute URI")
    elif c["mode"] == "push":
        raise Problem(_join(path, "url"), "is required for mode push")
    if "auth" in c:
        ap = _join(path, "auth")
        auth = obj(c["auth"], ap)
        required(auth, ap, "scheme")
        scheme = auth["scheme"]
        if scheme not in ("hmac", "bearer", "apikey"):
            raise Problem(_join(ap, "scheme"), 'must be one of "hmac", "bearer", "apikey"')
        for name in ("secret_ref", "token_ref"):
            if name in auth:
                string(auth[name], _join(ap, name))
        need, refuse = ("secret_ref", "token_ref") if scheme == "hmac" else ("token_ref", "secret_ref")
        required(auth, ap, need)
        forbidden(auth, ap, (refuse,), f"with scheme {scheme}")


def _request(value: object, path: str, v05: bool) -> None:
    """message.schema.json#/$defs/request."""
    r = obj(value, path)
    required(r, path, "mode")
    mode = r["mode"]
    if mode not in ("select", "input", "confirm"):
        raise Problem(_join(path, "mode"), 'must be one of "select", "input", "confirm"')
    options: list[object] | None = None
    if "options" in r:
        raw = r["options"]
        if not isinstance(raw, list):
            raise Problem(_join(path, "options"), "must be an array")
        options = raw
        for i, item in enumerate(raw):
            ip = f"{_join(path, 'options')}[{i}]"
            o = obj(item, ip)
            required(o, ip, "value", "label")
            string(o["value"], _join(ip, "value"))
            string(o["label"], _join(ip, "label"))
        canon = [json.dumps(o, sort_keys=True) for o in raw]
        if len(set(canon)) != len(canon):
            raise Problem(_join(path, "options"), "must not repeat an item")
    if "schema" in r:
        obj(r["schema"], _join(path, "schema"))
    if "permissions" in r:
        perms = obj(r["permissions"], _join(path, "permissions"))
        for name in ("allow_edit", "allow_respond", "allow_ignore"):
            if name in perms:
                boolean(perms[name], _join(path, f"permissions.{name}"))
    if "default_on_expire" in r and not (r["default_on_expire"] is None or isinstance(r["default_on_expire"], (str, Mapping))):
        raise Problem(_join(path, "default_on_expire"), "must be a string, an object or null")
    if "allowed_resolvers" in r:
        _resolvers(r["allowed_resolvers"], _join(path, "allowed_resolvers"), v05)
    if "callback" in r:
        _callback(r["callback"], _join(path, "callback"))
    if mode == "select" and (options is None or len(options) < 1):
        raise Problem(_join(path, "options"), "a select needs at least one option")
    if mode == "confirm" and options is not None and len(options) != 2:
        raise Problem(_join(path, "options"), "a confirm has exactly two options")
    if mode == "input":
        if "schema" not in r:
            raise Problem(_join(path, "schema"), "is required for mode input")
        schema = obj(r["schema"], _join(path, "schema"))
        props = schema.get("properties")
        if not isinstance(props, Mapping) or len(props) < 1:
            raise Problem(_join(path, "schema.properties"), "must define at least one property")
        if "type" in schema:
            declared = schema["type"]
            ok = declared == "object" or (
                isinstance(declared, list)
                and len(declared) >= 1
                and "object" in declared
                and all(t in _JSON_TYPES for t in declared)
                and len({json.dumps(t) for t in declared}) == len(declared)
            )
            if not ok:
                raise Problem(_join(path, "schema.type"), "must admit an object")


def _action(value: object, path: str, v05: bool) -> None:
    """message.schema.json#/$defs/action."""
    a = obj(value, path)
    required(a, path, "instructions")
    string(a["instructions"], _join(path, "instructions"))
    if "checklist" in a:
        raw = a["checklist"]
        if not isinstance(raw, list):
            raise Problem(_join(path, "checklist"), "must be an array")
        for i, item in enumerate(raw):
            ip = f"{_join(path, 'checklist')}[{i}]"
            it = obj(item, ip)
            required(it, ip, "text")
            string(it["text"], _join(ip, "text"))
            if "done" in it:
                boolean(it["done"], _join(ip, "done"))
    if "verification" in a:
        string(a["verification"], _join(path, "verification"))
    if "allowed_resolvers" in a:
        _resolvers(a["allowed_resolvers"], _join(path, "allowed_resolvers"), v05)
    if "callback" in a:
        _callback(a["callback"], _join(path, "callback"))


def check_message(value: object, path: str = "") -> None:
    """message.schema.json: the §4 envelope."""
    m = obj(value, path or "(body)")
    required(m, path, "ma2h_version", "type", "created_at", "agent", "title")
    version = pattern(m["ma2h_version"], _join(path, "ma2h_version"), VERSION)
    v05 = is_v05(version)
    kind = m["type"]
    if kind not in ("notify", "ask", "task"):
        raise Problem(_join(path, "type"), 'must be one of "notify", "ask", "task"')
    date_time(m["created_at"], _join(path, "created_at"))
    ap = _join(path, "agent")
    agent = obj(m["agent"], ap)
    required(agent, ap, "id", "run_id", "runtime")
    agent_id = string(agent["id"], _join(ap, "id"), min_length=1)
    string(agent["run_id"], _join(ap, "run_id"), min_length=1)
    if agent["runtime"] not in _RUNTIMES:
        raise Problem(_join(ap, "runtime"), "must be one of " + ", ".join(f'"{r}"' for r in _RUNTIMES))
    if "session" in agent:
        pattern(agent["session"], _join(ap, "session"), re.compile(r"sess_.+", re.S))
    if "project" in agent:
        string(agent["project"], _join(ap, "project"))
    if "labels" in agent:
        labels = obj(agent["labels"], _join(ap, "labels"))
        for k, v in labels.items():
            string(v, _join(ap, f"labels.{k}"))
    string(m["title"], _join(path, "title"), min_length=1, max_length=200)
    if "to" in m:
        pattern(m["to"], _join(path, "to"), ADDRESS)
    _directive_optional(m, path)
    for name in ("client_ref", "idempotency_key"):
        if name in m:
            string(m[name], _join(path, name))
    if "state" in m:
        obj(m["state"], _join(path, "state"))
    if "request" in m:
        _request(m["request"], _join(path, "request"), v05)
    if "action" in m:
        _action(m["action"], _join(path, "action"), v05)
    if kind == "ask":
        required(m, path, "request", "idempotency_key")
    if kind == "task":
        required(m, path, "action", "idempotency_key")
    if kind != "ask" and "request" in m:
        raise Problem(_join(path, "request"), f"not allowed on a {kind}")
    if kind != "task" and "action" in m:
        raise Problem(_join(path, "action"), f"not allowed on a {kind}")
    if "to" in m or "session" in agent:
        if not v05:
            raise Problem(_join(path, "ma2h_version"), "must be ≥ 0.5 with to or agent.session (§4)")
        if "#" in agent_id:
            raise Problem(_join(ap, "id"), "must not contain # on an addressed or session-bearing envelope (§4)")


def check_message_entry(value: object, path: str = "") -> None:
    """inbound-message.schema.json#/$defs/interAgentMessage: the delivered addressed §4 envelope
    with the entry rules — ≥ 0.5, a ``msg_`` id, the attested ``from``, ``to`` required, and
    ``state``/``client_ref``/callbacks stripped before delivery."""
    check_message(value, path)
    m = obj(value, path or "(body)")
    agent = obj(m["agent"], _join(path, "agent"))
    if not is_v05(m["ma2h_version"]):
        raise Problem(_join(path, "ma2h_version"), "must be ≥ 0.5 on a message entry (§8.7.1)")
    pattern(m.get("id"), _join(path, "id"), re.compile(r"msg_.+", re.S))
    sender = pattern(m.get("from"), _join(path, "from"), _AGENT_ADDRESS)
    if "to" not in m:
        raise Problem(_join(path, "to"), "is required on a message entry (§8.7.1)")
    forbidden(m, path, ("state", "client_ref"), "(stripped before delivery, §8.7.1)")
    for name in ("request", "action"):
        block = m.get(name)
        if isinstance(block, Mapping) and "callback" in block:
            raise Problem(_join(path, f"{name}.callback"), "is stripped before delivery (§8.7.1)")
    if "session" in agent and _SESSION_ADDRESS.fullmatch(sender) is None:
        raise Problem(_join(path, "from"), "must be session-qualified when agent.session is present (§8.7.1)")


def check_response_entry(value: object, path: str = "") -> None:
    """A §6 Response delivered to the submitting session: response.schema.json with minor ≥ 5."""
    check_response(value, path)
    r = obj(value, path or "(body)")
    if not is_v05(r.get("ma2h_version")):
        raise Problem(_join(path, "ma2h_version"), "must be ≥ 0.5 on a response entry (§8.7.1)")


def check_receipt(value: object, path: str = "") -> None:
    """inbound-message.schema.json#/$defs/receipt (§14.2 bounce)."""
    r = obj(value, path or "(body)")
    required(r, path, "ma2h_version", "type", "id", "in_reply_to", "event", "prior", "at", "session", "to")
    pattern(r["ma2h_version"], _join(path, "ma2h_version"), V05)
    if r["type"] != "receipt":
        raise Problem(_join(path, "type"), 'must be "receipt"')
    pattern(r["id"], _join(path, "id"), re.compile(r"rcpt_.+", re.S))
    string(r["in_reply_to"], _join(path, "in_reply_to"), min_length=1)
    if r["event"] != "bounced":
        raise Problem(_join(path, "event"), 'must be "bounced"')
    if r["prior"] not in ("queued", "delivered"):
        raise Problem(_join(path, "prior"), 'must be one of "queued", "delivered"')
    date_time(r["at"], _join(path, "at"))
    pattern(r["session"], _join(path, "session"), re.compile(r"sess_.+", re.S))
    pattern(r["to"], _join(path, "to"), _SESSION_ADDRESS)
    forbidden(r, path, ("request", "action", "state"), "on a receipt")


def problem_of(check: Callable[[object], None], value: object) -> str | None:
    """Runs a ``check_*`` and returns its problem text, or ``None``."""
    try:
        check(value)
    except Problem as e:
        return str(e)
    return None
