"""Run #2 of the §2.1 pattern: the push receiver. Every push is verified (§9.2); a replay or a
second delivery of the same answer is dropped (§6, a file dedup store that survives a restart);
the sealed state is opened (§9.3) and the agent resumes — once.

    MA2H_STATE_KEY=… MA2H_CALLBACK_SECRET=… RESUME_CALLBACK_URL=https://agent.example/ma2h/resume \
    python resume_receiver.py            # std-lib WSGI server on $PORT (default 8080)
    uvicorn resume_receiver:asgi_app     # or the same flow on any ASGI server

RESUME_CALLBACK_URL must be the callback URL exactly as ask_and_exit.py submitted it. Needs only
the ma2h package (its wheel) and `cryptography` (the state seal).
"""

import json
import os
from wsgiref.simple_server import make_server

from ma2h import FileDedupStore, FileReplayStore, asgi_push_receiver, open_state, wsgi_push_receiver

STORE = os.environ.get("MA2H_STORE_DIR", os.path.expanduser("~/.ma2h"))


def resume(response: dict) -> None:
    state = open_state(response["state"], os.environ["MA2H_STATE_KEY"])  # StateIntegrityError if tampered
    decision = (response.get("response") or {}).get("value")
    print(json.dumps({"resumed": response["in_reply_to"], "state": state, "decision": decision}), flush=True)
    # … carry on with the step the state names, approved or not.


options = dict(
    callback_url=os.environ["RESUME_CALLBACK_URL"],
    hmac_secret=os.environ["MA2H_CALLBACK_SECRET"],
    dedup_store=FileDedupStore(os.path.join(STORE, "dedup")),
    replay_store=FileReplayStore(os.path.join(STORE, "replay")),
)
asgi_app = asgi_push_receiver(resume, **options)
wsgi_app = wsgi_push_receiver(resume, **options)

if __name__ == "__main__":
    port = int(os.environ.get("PORT", "8080"))
    print(f"listening on :{port}", flush=True)
    make_server("", port, wsgi_app).serve_forever()
