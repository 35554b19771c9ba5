"""Shared test setup: where the repository, the shared spec folder and node are, and which ``ma2h``
is under test. With MA2H_TEST_INSTALLED=1 (scripts/ci.sh) the installed wheel is imported and the
source tree must not shadow it; otherwise ``src/`` is put first on the path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = PACKAGE_DIR.parent.parent
SHARED = (REPO_ROOT / ".." / "shared" / "ma2h").resolve()
VECTORS = SHARED / "conformance" / "vectors"
SCHEMAS = SHARED / "schema" / "v0.6"
NODE_MODULES = REPO_ROOT / "node_modules"

if os.environ.get("MA2H_TEST_INSTALLED") == "1":
    import ma2h

    for entry in ma2h.__path__:
        if Path(entry).resolve().is_relative_to(PACKAGE_DIR / "src"):
            raise RuntimeError(f"MA2H_TEST_INSTALLED=1 but ma2h comes from the source tree: {entry}")
else:
    sys.path.insert(0, str(PACKAGE_DIR / "src"))


def vector(name: str) -> Any:
    """A conformance vector by file name (without .json), read in place."""
    with open(VECTORS / f"{name}.json", encoding="utf-8") as f:
        return json.load(f)


def at(seconds: int | str) -> datetime:
    return datetime.fromtimestamp(int(seconds), timezone.utc)


def node_bin() -> str:
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("node is required for the cross-language tests")
    return found


def run_tsx(script: str, payload: object, timeout: float = 60) -> Any:
    """Runs tests/node/<script> with tsx (the repo's node_modules), JSON in on stdin, JSON out."""
    tsx = NODE_MODULES / ".bin" / "tsx"
    if not tsx.exists():
        raise RuntimeError(f"{tsx} is missing: run npm ci at the repository root")
    proc = subprocess.run(
        [str(tsx), str(Path(__file__).parent / "node" / script)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO_ROOT,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{script} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout)


@pytest.fixture
def tmp_dir(tmp_path: Path) -> str:
    return str(tmp_path)
