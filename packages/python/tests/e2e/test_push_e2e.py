"""Pushes from the real Hub (web + worker) to the ASGI receiver, served by the test's std-lib
HTTP/1.1 server: the genuine hmac push is verified (§9.2) and acted on once; the captured push
replayed, with a tampered value, a flipped ``edited``, under a wrong secret, or arriving late is
refused with 401 and never reaches ``on_response``; a re-signed duplicate is 200 without acting; a
raising ``on_response`` answers 500 and the Hub's retry is acted on; an ed25519 push (no-auth
callback) is verified through the Hub's published keys. The captured push through the WSGI
receiver too; and an answer that came by push is not acted on again when ``wait()`` pulls it
(one dedup store, §6)."""

from __future__ import annotations

import datetime as dt
import io
import json
from typing import Any

from ma2h import Callback, Client, MemoryDedupStore, MemoryReplayStore, asgi_push_receiver, wsgi_push_receiver
from ma2h.push import HmacKey, sign_response_push

from .hubkit import PUSH_SECRET, Hub, call, wait_for


def mount(hub: Hub, path: str, **options: Any) -> tuple[str, list[dict[str, Any]], list[str]]:
    acted: list[dict[str, Any]] = []
    refused: list[str] = []

    async def on_response(response: dict[str, Any]) -> None:
        acted.append(response)

    url = hub.push.origin + path
    defaults: dict[str, Any] = {"callback_url": url, "replay_store": MemoryReplayStore()}
    if "hub_url" not in options:
        defaults["hmac_secret"] = PUSH_SECRET
    app = asgi_push_receiver(
        options.pop("on_response", on_response),
        on_error=lambda e: refused.append(getattr(e, "reason", type(e).__name__)),
        **{**defaults, **options},
    )
    hub.push.mount(path, app)
    return url, acted, refused


def post(url: str, headers: dict[str, str], body: bytes) -> int:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status
    except urllib.error.HTTPError as err:
        return err.code


def test_asgi_receiver_acts_once_and_refuses_forgeries(hub: Hub, client: Client) -> None:
    url, acted, refused = mount(hub, "/push/asgi")
    handle = client.ask.select(
        "Ship it?",
        ["ship", "hold"],
        allow_edit=True,
        callback=Callback(url, secret_ref="cb"),
        state={"run": "py-1"},
    )
    hub.resolve(handle.id, {"resolution": "answered", "value": "hold until Monday"})
    wait_for(lambda: acted, what="the verified push")
    got = acted[0]
    assert got["in_reply_to"] == handle.id
    assert got["response"]["value"] == "hold until Monday"
    assert got["response"]["edited"] is True
    assert got["state"] == {"run": "py-1"}
    push = hub.push.at("/push/asgi")[0]
    assert push.status == 200
    signature = push.header("ma2h-signature")
    assert signature and signature.startswith("t=")

    def altered(fn: Any) -> bytes:
        body = json.loads(push.body)
        fn(body)
        return json.dumps(body).encode()

    headers = {"content-type": "application/json", "ma2h-signature": signature}
    # The same bytes again: the jti was recorded.
    assert post(url, headers, push.body) == 401
    assert refused[-1] == "replayed"
    cases = [
        ("value", altered(lambda b: b["response"].__setitem__("value", "ship")), {}),
        ("edited", altered(lambda b: b["response"].__setitem__("edited", False)), {}),
        ("wrong-secret", push.body, {"hmac_secret": "not-the-secret"}),
        ("late", push.body, {"now": lambda: dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=200)}),
    ]
    for label, body, over in cases:
        _, acted_copy, refused_copy = mount(hub, f"/push/asgi/{label}", callback_url=url, **over)
        assert post(hub.push.origin + f"/push/asgi/{label}", headers, body) == 401, label
        assert acted_copy == [], label
        assert refused_copy == ["outside_window" if label == "late" else "signature_mismatch"], label
    assert len(acted) == 1

    # Re-signed with a fresh jti (what a Hub retry looks like): acknowledged, not acted on again.
    resigned = sign_response_push(json.loads(push.body), callback_url=url, key=HmacKey(PUSH_SECRET), now=dt.datetime.now(dt.timezone.utc))
    assert post(url, {**headers, "ma2h-signature": resigned}, push.body) == 200
    assert len(acted) == 1


def test_a_failing_handler_is_retried_by_the_hub(hub: Hub, client: Client) -> None:
    calls: list[str] = []

    async def flaky(response: dict[str, Any]) -> None:
        calls.append(response["resolution_id"])
        if len(calls) == 1:
            raise RuntimeError("the first attempt fails")

    url, _, refused = mount(hub, "/push/flaky", on_response=flaky)
    handle = client.ask.confirm("Retry me", callback=Callback(url, secret_ref="cb"))
    hub.resolve(handle.id, {"resolution": "answered", "value": "approve"})
    wait_for(lambda: len(calls) >= 2, timeout=30, what="the Hub's retry")
    statuses = [c.status for c in hub.push.at("/push/flaky")]
    assert statuses[:2] == [500, 200]
    assert calls[0] == calls[1]
    assert "RuntimeError" in refused


def test_ed25519_push_is_verified_through_the_published_keys(hub: Hub, client: Client) -> None:
    url, acted, _ = mount(hub, "/push/ed25519", hub_url=hub.url)
    handle = client.ask.confirm("Signed with ed25519", callback=Callback(url))
    hub.resolve(handle.id, {"resolution": "answered", "value": "deny"})
    wait_for(lambda: acted, what="the ed25519 push")
    assert acted[0]["in_reply_to"] == handle.id and acted[0]["response"]["value"] == "deny"
    # Pinned to another key id: the same push is refused as unexpected_key.
    push = hub.push.at("/push/ed25519")[0]
    _, other, refused = mount(hub, "/push/ed25519/pinned", hub_url=hub.url, callback_url=url, key_id="not-our-kid")
    assert post(hub.push.origin + "/push/ed25519/pinned", {"ma2h-signature": push.header("ma2h-signature") or ""}, push.body) == 401
    assert other == [] and refused == ["unexpected_key"]


def test_wsgi_receiver_and_push_pull_dedup(hub: Hub) -> None:
    dedup = MemoryDedupStore()
    client = Client(hub.url, hub.a.key, hub.a.id, dedup_store=dedup)
    url, acted, _ = mount(hub, "/push/shared", dedup_store=dedup)
    handle = client.ask.confirm("Pushed and pulled", callback=Callback(url, secret_ref="cb"))
    hub.resolve(handle.id, {"resolution": "answered", "value": "approve"})
    wait_for(lambda: acted, what="the push")
    # The same answer pulled: act_once sees the push's reservation (§6 key) and does not act.
    answer = handle.wait(timeout=10)
    ran, _ = client.act_once(answer, lambda r: "acted")
    assert ran is False

    push = hub.push.at("/push/shared")[0]
    seen: list[dict[str, Any]] = []
    app = wsgi_push_receiver(seen.append, callback_url=url, hmac_secret=PUSH_SECRET, replay_store=MemoryReplayStore())

    def run(method: str = "POST") -> tuple[str, dict[str, Any]]:
        environ = {
            "REQUEST_METHOD": method,
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(push.body)),
            "HTTP_MA2H_SIGNATURE": push.header("ma2h-signature"),
            "wsgi.input": io.BytesIO(push.body),
        }
        out: dict[str, str] = {}
        body = b"".join(app(environ, lambda status, headers: out.update(status=status)))
        return out["status"], json.loads(body)

    status, body = run()
    assert status.startswith("200") and body == {"ok": True}
    assert seen[0]["in_reply_to"] == handle.id
    status, body = run()
    assert status.startswith("401") and body["error"]["code"] == "unauthenticated"
    assert run("GET")[0].startswith("405")
    assert len(seen) == 1
    # The Hub recorded the 200 delivery.
    code, view = call(hub.url, hub.a.key, "GET", f"/v1/messages/{handle.id}")
    assert code == 200 and view["status"] == "answered"
