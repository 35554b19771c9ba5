"""examples/python and the README's quick start, run against the real Hub: the quick start (the
README's five lines, identical to examples/python/quickstart.py) asks, a person approves, it
prints the answer; ask_and_exit.py asks with a sealed state and a push callback and exits, and
resume_receiver.py's ASGI app — mounted on the test's push server at the callback URL — verifies
the push, opens the state and resumes once (a replay and a re-signed duplicate do not resume it
again). The framework examples cannot run here (no framework is installable): each compiles and
says which framework version it was written for."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import py_compile
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ma2h.push import HmacKey, sign_response_push

from .hubkit import PACKAGE, PUSH_SECRET, REPO, Hub, wait_for

EXAMPLES = REPO / "examples" / "python"
STATE_KEY = "state-key-of-the-python-resume-example-0123456789"

#: Runs a script as __main__, printing each submitted message id to stderr first (the test's person
#: needs the id; the script itself stays as a user runs it).
WRAPPER = """
import runpy, sys
import ma2h.client as c
submit = c.Messages.submit
def recording(self, envelope):
    handle = submit(self, envelope)
    print("MESSAGE", handle.id, file=sys.stderr, flush=True)
    return handle
c.Messages.submit = recording
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def readme_quick_start() -> str:
    text = (PACKAGE / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_readme_quick_start_is_five_lines_and_the_example(hub: Hub) -> None:
    code = readme_quick_start()
    assert len(code.strip().splitlines()) == 5
    assert code == (EXAMPLES / "quickstart.py").read_text(encoding="utf-8")


def test_the_quick_start_runs_against_the_hub(hub: Hub) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRAPPER, str(EXAMPLES / "quickstart.py")],
        env=hub.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.startswith("MESSAGE "), line + proc.stderr.read()
    hub.resolve(line.split()[1], {"resolution": "answered", "value": "approve"})
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert out.strip() == "answered approve (a person)"


def test_ask_and_exit_then_the_resume_receiver(hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    callback = hub.push.origin + "/examples/resume?run=42"
    env = {
        "MA2H_STATE_KEY": STATE_KEY,
        "MA2H_CALLBACK_SECRET": PUSH_SECRET,
        "RESUME_CALLBACK_URL": callback,
        "RESUME_SECRET_REF": "cb",
        "MA2H_STORE_DIR": str(tmp_path / "store"),
        "HOME": str(tmp_path),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    spec = importlib.util.spec_from_file_location("resume_receiver_example", EXAMPLES / "resume_receiver.py")
    assert spec and spec.loader
    receiver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(receiver)
    hub.push.mount("/examples/resume", receiver.asgi_app)

    run1 = subprocess.run(
        [sys.executable, str(EXAMPLES / "ask_and_exit.py"), "Promote build 142?"],
        env={**hub.env(), **env},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run1.returncode == 0, run1.stderr
    message_id = run1.stdout.strip()
    hub.resolve(message_id, {"resolution": "answered", "value": "approve"})

    def resumed() -> list[dict]:  # type: ignore[type-arg]
        out = capsys.readouterr().out
        seen.extend(json.loads(line) for line in out.splitlines() if line.startswith("{"))
        return seen

    seen: list[dict] = []  # type: ignore[type-arg]
    wait_for(resumed, timeout=20, what="the resumed run")
    assert seen == [{"resumed": message_id, "state": {"build": 142, "step": "promote"}, "decision": "approve"}]

    push = hub.push.at("/examples/resume")[0]
    import urllib.error
    import urllib.request

    def post(signature: str) -> int:
        req = urllib.request.Request(callback, data=push.body, method="POST", headers={"ma2h-signature": signature})
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                return res.status
        except urllib.error.HTTPError as err:
            return err.code

    assert post(push.header("ma2h-signature") or "") == 401  # the same jti: a replay
    fresh = sign_response_push(json.loads(push.body), callback_url=callback, key=HmacKey(PUSH_SECRET), now=dt.datetime.now(dt.timezone.utc))
    assert post(fresh) == 200  # a Hub retry: acknowledged, not resumed again
    resumed()
    assert len(seen) == 1


@pytest.mark.parametrize("name", ["langgraph_approval.py", "openai_agents_approval.py", "crewai_human_input.py"])
def test_framework_examples_compile_and_name_their_version(name: str, tmp_path: Path) -> None:
    path = EXAMPLES / name
    py_compile.compile(str(path), cfile=str(tmp_path / "x.pyc"), doraise=True)
    assert re.search(r"Written for (LangGraph|openai-agents|CrewAI) \d", path.read_text(encoding="utf-8"))
