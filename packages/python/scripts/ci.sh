#!/usr/bin/env bash
# The Python package's CI: build the wheel with Debian's python3 (no package index here), install it
# into a fresh virtual environment that sees the system's cryptography/pytest, type-check the package
# with mypy --strict, and run the tests against the INSTALLED package. Exit 5 from pytest (no tests
# collected) fails the run like any other non-zero exit.
# Usage: packages/python/scripts/ci.sh   (PYTHON=/usr/bin/python3 by default)
set -euo pipefail

PYTHON="${PYTHON:-/usr/bin/python3}"
PKG="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ma2h-python-ci.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

echo "== python: $("$PYTHON" --version) at $PYTHON"
"$PYTHON" -c 'import sys; assert sys.version_info >= (3, 10), sys.version'

echo "== python: build the wheel"
# from a copy, so the build's egg-info and build/ never land in the work tree
mkdir -p "$WORK/pkg"
for item in pyproject.toml src README.md LICENSE; do
  if [ -e "$PKG/$item" ]; then cp -r "$PKG/$item" "$WORK/pkg/"; fi
done
find "$WORK/pkg" \( -name '__pycache__' -o -name '*.egg-info' \) -prune -exec rm -rf {} +
"$PYTHON" -m build --no-isolation --wheel --outdir "$WORK/dist" "$WORK/pkg" >"$WORK/build.log" 2>&1 || {
  cat "$WORK/build.log"
  exit 1
}
WHEEL="$(ls "$WORK"/dist/ma2h-*.whl)"
echo "built $(basename "$WHEEL")"

echo "== python: install it into a fresh venv"
"$PYTHON" -m venv --system-site-packages "$WORK/venv"
VPY="$WORK/venv/bin/python"
"$VPY" -m pip install --quiet --no-index --no-deps "$WHEEL"
# a build that lost a file (py.typed, a module) fails here, not in a user's project
"$VPY" - <<'PY'
import importlib, importlib.resources, pathlib
import ma2h
for name in ("jcs", "errors", "push", "directive", "state", "journal", "response"):
    importlib.import_module(f"ma2h.{name}")
root = pathlib.Path(next(iter(ma2h.__path__)))
assert "site-packages" in str(root), root
assert (root / "py.typed").is_file(), "py.typed is missing from the wheel"
print("installed at", root)
PY

echo "== python: mypy --strict on the installed package"
SITE="$("$VPY" -c 'import ma2h, pathlib; print(pathlib.Path(next(iter(ma2h.__path__))).parent)')"
(cd "$WORK" && MYPYPATH="$SITE" "$PYTHON" -m mypy --strict --cache-dir "$WORK/mypy-cache" -p ma2h)

echo "== python: pytest against the installed package"
set +e
(cd "$PKG" && MA2H_TEST_INSTALLED=1 "$VPY" -m pytest -p no:cacheprovider tests)
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
