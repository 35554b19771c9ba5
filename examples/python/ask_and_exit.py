"""Run #1 of the §2.1 pattern in Python: seal what run #2 needs (§9.3), ask with a signed push
callback, print the message id and exit. resume_receiver.py is run #2.

    MA2H_URL=… MA2H_API_KEY=… MA2H_AGENT_ID=… MA2H_STATE_KEY=… \
    RESUME_CALLBACK_URL=https://agent.example/ma2h/resume RESUME_SECRET_REF=agent-callback \
    python ask_and_exit.py "Promote build 142?"

Needs only the ma2h package (its wheel) and, for the state seal, `cryptography`.
"""

import os
import sys

from ma2h import Callback, Client, FileSubmitJournal, seal_state

title = sys.argv[1] if len(sys.argv) > 1 else "Promote build 142?"
client = Client.from_env(journal=FileSubmitJournal(os.path.expanduser("~/.ma2h/journal")))
handle = client.ask.confirm(
    title,
    state=seal_state({"build": 142, "step": "promote"}, os.environ["MA2H_STATE_KEY"]),
    callback=Callback(os.environ["RESUME_CALLBACK_URL"], secret_ref=os.environ["RESUME_SECRET_REF"]),
    expires_in=3600,
    default_on_expire="deny",
    idempotency_key=os.environ.get("RESUME_IDEMPOTENCY_KEY"),  # rerun with the same key after a crash: same message
)
print(handle.id)
