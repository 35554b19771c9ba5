"""verify_push refuses forged pushes (a tampered value, `edited`, `t`, `jti`, the wrong key, a
replay), verifies ed25519 through the Hub's published keys document (discovery, same-origin rule,
refetch on rotation, key_id pinning), refuses answers the journal never sent, and fails clearly
without `cryptography`. Keys documents come from an injected fetch or a localhost HTTP server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import PACKAGE_DIR
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ma2h._keys import b64u
from ma2h.errors import HubKeysError, MissingDependencyError, VerificationError
from ma2h.journal import FileSubmitJournal, MemorySubmitJournal
from ma2h.push import (
    Ed25519SigningKey,
    FileReplayStore,
    HmacKey,
    MemoryReplayStore,
    PublishedKeys,
    format_signature_header,
    parse_signature_header,
    response_signed_context,
    sign_context,
    sign_response_push,
    urllib_fetch,
    verify_push,
)

NOW = datetime(2026, 12, 7, 12, 0, 0, tzinfo=timezone.utc)
CALLBACK = "https://agent.example/ma2h/resume?x=1"
SECRET = "whsec-a-registered-secret-0123456789"
HUB = "https://hub.example"


def response_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "ma2h_version": "0.6",
        "in_reply_to": "msg_01PUSHTEST",
        "resolution_id": "res_01PUSHTEST",
        "agent": {"id": "deploybot/dev-team", "run_id": "run_7"},
        "resolution": "answered",
        "response": {"value": "hold", "edited": False, "actor": "human:alice", "resolved_at": "2026-12-07T11:59:50Z"},
        "state": {"step": 3},
    }
    body.update(changes)
    return body


def outcome(run: Callable[[], object]) -> str:
    try:
        run()
    except VerificationError as e:
        return e.reason
    return "accepted"


def hmac_push(body: dict[str, Any], *, jti: str = "jti_FIXED0001", now: datetime = NOW) -> dict[str, str]:
    return {"MA2H-Signature": sign_response_push(body, callback_url=CALLBACK, key=HmacKey(SECRET), now=now, jti=jti)}


def verify(headers: Any, body: Any, **extra: Any) -> object:
    options: dict[str, Any] = {"callback_url": CALLBACK, "hmac_secret": SECRET, "now": lambda: NOW, "replay_store": MemoryReplayStore()}
    options.update(extra)
    raw = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return verify_push(headers, raw, **options)


def test_an_honest_push_verifies() -> None:
    body = response_body()
    assert verify(hmac_push(body), body) == body


@pytest.mark.parametrize(
    "tamper",
    [
        lambda b: b["response"].update(value="ship"),
        lambda b: b["response"].update(edited=True),
        lambda b: b["response"].update(resolved_at="2026-12-07T11:59:51Z"),
        lambda b: b.update(resolution="declined"),
        lambda b: b.update(in_reply_to="msg_01OTHERASK"),
        lambda b: b.update(resolution_id="res_01OTHER"),
        lambda b: b.update(state={"step": 4}),
        lambda b: b.pop("state"),
        lambda b: b.update(ma2h_version="0.5"),
    ],
    ids=["value", "edited", "resolved_at", "resolution", "in_reply_to", "resolution_id", "state", "state-removed", "version"],
)
def test_a_tampered_body_is_a_signature_mismatch(tamper: Callable[[dict[str, Any]], None]) -> None:
    body = response_body()
    headers = hmac_push(body)
    tamper(body)
    assert outcome(lambda: verify(headers, body)) == "signature_mismatch"


def test_unbound_fields_do_not_break_the_signature_but_a_bad_shape_is_refused() -> None:
    body = response_body()
    headers = hmac_push(body)
    body["defaulted"] = False  # unbound by §9.2, and still a valid Response
    assert outcome(lambda: verify(headers, body)) == "accepted"
    del body["agent"]
    assert outcome(lambda: verify(headers, body)) == "invalid_shape"


def test_t_and_jti_are_bound_and_t_is_windowed() -> None:
    body = response_body()
    parsed = parse_signature_header(hmac_push(body)["MA2H-Signature"])
    assert parsed is not None
    moved_t = {"MA2H-Signature": format_signature_header(parsed.t - 1, parsed.jti, parsed.v1)}
    assert outcome(lambda: verify(moved_t, body)) == "signature_mismatch"
    other_jti = {"MA2H-Signature": format_signature_header(parsed.t, "jti_OTHER", parsed.v1)}
    assert outcome(lambda: verify(other_jti, body)) == "signature_mismatch"
    stale = hmac_push(body, now=NOW - timedelta(seconds=121))
    assert outcome(lambda: verify(stale, body)) == "outside_window"
    assert outcome(lambda: verify(stale, body, window_seconds=300)) == "accepted"
    future = hmac_push(body, now=NOW + timedelta(seconds=121))
    assert outcome(lambda: verify(future, body)) == "outside_window"


def test_the_wrong_key_the_wrong_callback_url_and_header_faults() -> None:
    body = response_body()
    headers = hmac_push(body)
    assert outcome(lambda: verify(headers, body, hmac_secret="another-secret")) == "signature_mismatch"
    assert outcome(lambda: verify(headers, body, callback_url=CALLBACK + "&y=2")) == "signature_mismatch"
    assert outcome(lambda: verify({}, body)) == "missing_header"
    assert outcome(lambda: verify({"ma2h-signature": "t=1,v1=x"}, body)) == "malformed_header"
    assert outcome(lambda: verify({"ma2h-signature": [headers["MA2H-Signature"]] * 2}, body)) == "malformed_header"
    assert outcome(lambda: verify(headers, "not json")) == "invalid_body"
    assert outcome(lambda: verify(headers, b"\xff\xfe")) == "invalid_body"
    assert outcome(lambda: verify(headers, "[1]")) == "invalid_body"
    assert outcome(lambda: verify(headers, '{"a": NaN}')) == "invalid_body"


def test_a_replay_is_refused_and_a_forgery_does_not_poison_the_store(tmp_dir: str) -> None:
    for store in [MemoryReplayStore(), FileReplayStore(os.path.join(tmp_dir, "jti"))]:
        body = response_body()
        headers = hmac_push(body, jti="jti_REPLAY01")
        forged = response_body()
        forged["response"]["value"] = "ship"
        assert outcome(lambda: verify(headers, forged, replay_store=store)) == "signature_mismatch"
        assert outcome(lambda: verify(headers, body, replay_store=store)) == "accepted"
        assert outcome(lambda: verify(headers, body, replay_store=store)) == "replayed"
    # the file store is shared: a second process (a new store on the same directory) refuses it too
    again = FileReplayStore(os.path.join(tmp_dir, "jti"))
    assert outcome(lambda: verify(hmac_push(response_body(), jti="jti_REPLAY01"), response_body(), replay_store=again)) == "replayed"


def test_the_file_replay_store_uses_the_ts_layout(tmp_dir: str) -> None:
    import hashlib

    store = FileReplayStore(tmp_dir)
    until = NOW + timedelta(seconds=120)
    assert store.check_and_record("jti_X", until, NOW)
    path = Path(tmp_dir) / hashlib.sha256(b"jti_X").hexdigest()
    assert path.read_text() == '{"expires_at_ms":%d}' % int(until.timestamp() * 1000)  # JSON.stringify's
    assert path.stat().st_mode & 0o777 == 0o600
    assert not store.check_and_record("jti_X", until, NOW)
    assert store.check_and_record("jti_X", until + timedelta(seconds=200), until + timedelta(seconds=1))  # expired: replaced


def test_the_journal_refuses_an_answer_to_a_message_never_sent(tmp_dir: str) -> None:
    body = response_body()
    for journal in [MemorySubmitJournal(), FileSubmitJournal(tmp_dir)]:
        assert outcome(lambda: verify(hmac_push(body), body, journal=journal)) == "not_sent"
        journal.save("idem-1", '{"type":"ask"}')
        journal.complete("idem-1", {"id": "msg_01PUSHTEST", "status": "pending"})
        assert outcome(lambda: verify(hmac_push(body), body, journal=journal)) == "accepted"


def test_option_rules() -> None:
    body = response_body()
    headers = hmac_push(body)
    with pytest.raises(TypeError):
        verify(headers, body, hub_url=HUB)  # both schemes
    with pytest.raises(TypeError):
        verify(headers, body, hmac_secret=None)  # neither
    for bad in [[], "", [""]]:
        with pytest.raises(TypeError):
            verify(headers, body, hmac_secret=bad)
    with pytest.raises(TypeError):
        verify(headers, body, window_seconds=0)
    with pytest.raises(TypeError):
        verify(headers, body, callback_url="")
    with pytest.raises(TypeError):
        verify(headers, body, key_id="kid-1")  # key_id pins an ed25519 key, not a secret
    with pytest.raises(TypeError):
        verify(headers, body, journal=object())


# ─── ed25519 through the published keys document ─────────────────────────────────────────────────


def new_key() -> tuple[Ed25519SigningKey, dict[str, str]]:
    private = Ed25519PrivateKey.generate()
    seed = private.private_bytes_raw() if hasattr(private, "private_bytes_raw") else _seed(private)
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    kid = "kid-" + b64u(public)[:8]
    return Ed25519SigningKey(seed), {"kty": "OKP", "crv": "Ed25519", "x": b64u(public), "kid": kid, "use": "sig", "alg": "EdDSA"}


def _seed(private: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

    return private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())


class FakeHub:
    """An injectable fetch serving the discovery and keys documents; counts fetches."""

    def __init__(self, jwks: list[dict[str, str]], keys_url: str | None = f"{HUB}/keys.json") -> None:
        self.jwks = jwks
        self.keys_url = keys_url
        self.calls: list[str] = []

    def __call__(self, url: str) -> tuple[int, bytes]:
        self.calls.append(url)
        if url == f"{HUB}/.well-known/ma2h":
            doc = {"ma2h_version": "0.6"} if self.keys_url is None else {"signing_keys_url": self.keys_url}
            return 200, json.dumps(doc).encode()
        if url in (self.keys_url, f"{HUB}/.well-known/ma2h-keys"):
            return 200, json.dumps({"keys": self.jwks}).encode()
        return 404, b""


def ed_push(body: dict[str, Any], key: Ed25519SigningKey, jti: str = "jti_ED000001") -> dict[str, str]:
    return {"MA2H-Signature": sign_response_push(body, callback_url=CALLBACK, key=key, now=NOW, jti=jti)}


def verify_ed(headers: Any, body: Any, **extra: Any) -> object:
    return verify(headers, body, hmac_secret=None, **extra)


def test_ed25519_push_verifies_through_discovery_and_is_tamper_proof() -> None:
    key, jwk = new_key()
    hub = FakeHub([{"kty": "RSA", "n": "x", "e": "AQAB"}, jwk])
    keys = PublishedKeys(HUB, fetch=hub)
    body = response_body()
    assert outcome(lambda: verify_ed(ed_push(body, key), body, hub_keys=keys)) == "accepted"
    assert hub.calls == [f"{HUB}/.well-known/ma2h", f"{HUB}/keys.json"]
    tampered = response_body()
    tampered["response"]["edited"] = True
    assert outcome(lambda: verify_ed(ed_push(body, key, "jti_ED000002"), tampered, hub_keys=keys)) == "signature_mismatch"
    # a mismatch under cached keys refetched them once (a rotation may have happened)
    assert hub.calls[2:] == [f"{HUB}/keys.json"]


def test_ed25519_a_key_the_hub_does_not_publish_is_refused_and_rotation_is_picked_up() -> None:
    old, old_jwk = new_key()
    new, new_jwk = new_key()
    hub = FakeHub([old_jwk], keys_url=None)  # no signing_keys_url: the well-known default
    keys = PublishedKeys(HUB, fetch=hub)
    body = response_body()
    assert outcome(lambda: verify_ed(ed_push(body, old), body, hub_keys=keys)) == "accepted"
    assert hub.calls[-1] == f"{HUB}/.well-known/ma2h-keys"
    assert outcome(lambda: verify_ed(ed_push(body, new, "jti_ED2"), body, hub_keys=keys)) == "signature_mismatch"
    hub.jwks = [old_jwk, new_jwk]  # the Hub rotated
    assert outcome(lambda: verify_ed(ed_push(body, new, "jti_ED3"), body, hub_keys=keys)) == "accepted"
    # an hmac MAC never verifies against ed25519 keys
    assert outcome(lambda: verify_ed(hmac_push(body, jti="jti_ED4"), body, hub_keys=keys)) == "signature_mismatch"


def test_ed25519_key_id_pinning_refuses_another_accounts_key() -> None:
    mine, my_jwk = new_key()
    theirs, their_jwk = new_key()
    keys = PublishedKeys(HUB, fetch=FakeHub([my_jwk, their_jwk]))
    body = response_body()
    assert outcome(lambda: verify_ed(ed_push(body, mine), body, hub_keys=keys, key_id=my_jwk["kid"])) == "accepted"
    assert outcome(lambda: verify_ed(ed_push(body, theirs, "jti_P2"), body, hub_keys=keys, key_id=my_jwk["kid"])) == "unexpected_key"
    assert outcome(lambda: verify_ed(ed_push(body, theirs, "jti_P3"), body, hub_keys=keys, key_id=[my_jwk["kid"], their_jwk["kid"]])) == "accepted"


def test_hub_url_shares_one_cache_per_fetch_and_origin() -> None:
    key, jwk = new_key()
    hub = FakeHub([jwk])
    body = response_body()
    assert outcome(lambda: verify_ed(ed_push(body, key, "jti_S1"), body, hub_url=HUB + "/some/path", fetch=hub)) == "accepted"
    assert outcome(lambda: verify_ed(ed_push(body, key, "jti_S2"), body, hub_url=HUB, fetch=hub)) == "accepted"
    assert len(hub.calls) == 2  # discovery + keys, once


def test_keys_faults_are_hub_keys_errors_not_refusals() -> None:
    body = response_body()
    key, jwk = new_key()
    off_origin = PublishedKeys(HUB, fetch=FakeHub([jwk], keys_url="https://evil.example/keys.json"))
    with pytest.raises(HubKeysError):
        verify_ed(ed_push(body, key), body, hub_keys=off_origin)
    down = PublishedKeys(HUB, fetch=lambda url: (500, b""))
    with pytest.raises(HubKeysError):
        verify_ed(ed_push(body, key), body, hub_keys=down)

    def refused(url: str) -> tuple[int, bytes]:
        raise ConnectionRefusedError("no")

    with pytest.raises(HubKeysError):
        verify_ed(ed_push(body, key), body, hub_keys=PublishedKeys(HUB, fetch=refused))
    with pytest.raises(TypeError):
        PublishedKeys("ftp://hub.example")


def test_the_default_fetch_reads_a_localhost_hub_and_does_not_follow_redirects() -> None:
    key, jwk = new_key()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/.well-known/ma2h":
                payload = json.dumps({"signing_keys_url": f"http://127.0.0.1:{port}/k"}).encode()
            elif self.path == "/k":
                payload = json.dumps({"keys": [jwk]}).encode()
            else:
                self.send_response(302)
                self.send_header("location", "/k")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        body = response_body()
        hub = f"http://127.0.0.1:{port}"
        assert outcome(lambda: verify_ed(ed_push(body, key, "jti_L1"), body, hub_keys=PublishedKeys(hub))) == "accepted"
        assert urllib_fetch(f"{hub}/elsewhere")[0] == 302
    finally:
        server.shutdown()
        server.server_close()


def test_without_cryptography_hmac_works_and_ed25519_is_a_clear_missing_dependency() -> None:
    """A child interpreter where `cryptography` cannot be imported."""
    body = response_body()
    program = f"""
import json, sys
sys.modules['cryptography'] = None  # makes `import cryptography...` raise ImportError
from datetime import datetime, timezone
from ma2h.push import verify_push, HmacKey, sign_response_push, PublishedKeys
from ma2h.errors import MissingDependencyError
from ma2h.state import seal_state
now = datetime.fromtimestamp({NOW.timestamp()}, timezone.utc)
body = {json.dumps(body)!r}
header = sign_response_push(json.loads(body), callback_url={CALLBACK!r}, key=HmacKey({SECRET!r}), now=now)
got = verify_push({{'ma2h-signature': header}}, body, callback_url={CALLBACK!r}, hmac_secret={SECRET!r}, now=lambda: now)
assert got['in_reply_to'] == 'msg_01PUSHTEST'
for run in [lambda: verify_push({{'ma2h-signature': header}}, body, callback_url={CALLBACK!r}, hub_keys=PublishedKeys('https://hub.example', fetch=lambda u: (500, b'')), now=lambda: now),
            lambda: seal_state({{'a': 1}}, 'k' * 32)]:
    try:
        run()
    except MissingDependencyError as e:
        assert 'pip install' in str(e) and 'cryptography' in str(e), str(e)
    else:
        raise SystemExit('no MissingDependencyError')
print('ok')
"""
    env = dict(os.environ)
    if os.environ.get("MA2H_TEST_INSTALLED") != "1":
        env["PYTHONPATH"] = str(PACKAGE_DIR / "src")
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
    assert issubclass(MissingDependencyError, Exception)


def test_signer_helpers_reproduce_the_context() -> None:
    body = response_body()
    header = sign_response_push(body, callback_url=CALLBACK, key=HmacKey(SECRET), now=NOW, jti="jti_H1")
    parsed = parse_signature_header(header)
    assert parsed is not None and parsed.t == int(NOW.timestamp()) and parsed.jti == "jti_H1"
    ctx = response_signed_context(body, CALLBACK, "jti_H1", parsed.t)
    assert parsed.v1 == sign_context(ctx, HmacKey(SECRET))
    assert parse_signature_header("t=1, jti=a , v1=b, x=y") is not None  # spaces and unknown params tolerated
    assert parse_signature_header("t=1,jti=a,v1=b,t=2") is None  # a repeated parameter
    assert parse_signature_header("t=-1,jti=a,v1=b") is None
