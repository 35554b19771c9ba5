"""RFC 8785 canonicalization (ma2h.jcs), vetted three ways as docs/decisions.md records: RFC 8785's
own examples, every canonical string the conformance fixtures carry (in ../shared/ma2h), and the
`canonicalize` npm package (what @ma2h/protocol signs with) on 10,000 generated documents with
tricky numbers and strings, run in node from this test."""

from __future__ import annotations

import json
import math
import random
import struct
import subprocess
from typing import Any

import pytest
from conftest import NODE_MODULES, REPO_ROOT, VECTORS, node_bin

from ma2h.jcs import canonicalize, canonicalize_str, format_number, sha256_hex

# RFC 8785 Appendix B: IEEE-754 bit patterns and their ECMAScript serialization.
RFC_NUMBERS = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


def from_bits(hex_bits: str) -> float:
    return float(struct.unpack(">d", bytes.fromhex(hex_bits))[0])


@pytest.mark.parametrize("bits,expected", RFC_NUMBERS)
def test_rfc8785_appendix_b_numbers(bits: str, expected: str) -> None:
    assert format_number(from_bits(bits)) == expected


@pytest.mark.parametrize("bits", ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"])
def test_nan_and_infinity_are_refused(bits: str) -> None:
    with pytest.raises(ValueError):
        canonicalize(from_bits(bits))


def test_rfc8785_section_3_2_2_example() -> None:
    text = (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )
    assert canonicalize(json.loads(text)) == expected.encode("utf-8")


def test_rfc8785_section_3_2_3_sorting_by_utf16_code_units() -> None:
    value = {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\U0001f600": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis",
    }
    keys = list(json.loads(canonicalize_str(value)))
    assert keys == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]


def test_integers_are_doubles_and_other_types_are_refused() -> None:
    assert canonicalize(12345678901234567890) == b"12345678901234567000"
    assert canonicalize([True, False, None, -0.0, 1.0]) == b"[true,false,null,0,1]"
    assert canonicalize({"a": (1, 2)}) == b'{"a":[1,2]}'
    assert canonicalize("\u2028\x7f\x1f") == '"\u2028\x7f\\u001f"'.encode("utf-8")
    assert canonicalize("\ud83d\ude00") == '"\U0001f600"'.encode("utf-8")  # a pair is one character
    with pytest.raises(ValueError):
        canonicalize({"\ud800": 1})  # a lone surrogate, as the npm package refuses it
    for bad in [{1: "x"}, b"bytes", {1.5}, object()]:
        with pytest.raises(TypeError):
            canonicalize(bad)


def _canonical_strings(node: Any, path: str = "") -> list[tuple[str, str, Any]]:
    """(path, canonical text, the sibling value it canonicalizes when the fixture names one)."""
    out: list[tuple[str, str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str) and key.endswith("canonical_jcs"):
                source_key = {
                    "canonical_jcs": "signed_context",
                    "payload_canonical_jcs": "payload",
                    "ack_canonical_jcs": None,
                    "receipt_canonical_jcs": None,
                    "content_canonical_jcs": None,
                }.get(key)
                out.append((f"{path}.{key}", value, node.get(source_key) if source_key else None))
            else:
                out.extend(_canonical_strings(value, f"{path}.{key}"))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.extend(_canonical_strings(value, f"{path}[{i}]"))
    return out


def test_every_fixture_canonical_string_is_reproduced() -> None:
    seen = 0
    sourced = 0
    for file in sorted(VECTORS.glob("*.json")):
        fixture = json.loads(file.read_text(encoding="utf-8"))
        for path, text, source in _canonical_strings(fixture):
            seen += 1
            # the canonical text is a fixed point of canonicalization
            assert canonicalize_str(json.loads(text)) == text, f"{file.name}{path}"
            if source is not None:
                sourced += 1
                assert canonicalize_str(source) == text, f"{file.name}{path} from its source"
        for digest_key, canon_key in [
            ("payload_sha256", "payload_canonical_jcs"),
            ("receipt_sha256", "receipt_canonical_jcs"),
        ]:
            if isinstance(fixture.get(canon_key), str) and isinstance(fixture.get(digest_key), str):
                assert sha256_hex(fixture[canon_key]) == fixture[digest_key], file.name
    assert seen >= 15 and sourced >= 8  # the fixtures hold at least these many (guards a moved folder)


def test_dp004_numeric_payload_bytes_and_digest() -> None:
    fixture = json.loads((VECTORS / "dp-004-numeric-payload.json").read_text(encoding="utf-8"))
    assert canonicalize_str(fixture["payload"]) == fixture["payload_canonical_jcs"]
    assert sha256_hex(canonicalize(fixture["payload"])) == fixture["payload_sha256"]


# ─── the npm `canonicalize` package on 10,000 generated documents ────────────────────────────────

_TRICKY_NUMBERS = [
    0.0, -0.0, 1e21, 1e20, 9.999999999999999e20, 1e-6, 1e-7, 9.99e-7, 1.5e-7, 0.1, 0.2, 0.30000000000000004,
    5e-324, -5e-324, 1.7976931348623157e308, 2.2250738585072014e-308, 2.225073858507201e-308,
    9007199254740991, 9007199254740992, 9007199254740993, 2**63, -(2**63), 2**64 + 1, 10**21, 10**22,
    123456789012345678901234567890, 333333333.3333333, 1e23, 4.35, 0.000001234, 1234567.891, 100, -100,
]
_CHARS = (
    [chr(c) for c in range(0x00, 0x20)]
    + list("azAZ09 \"\\/'~`{}[],:")
    + ["\u007f", "\u0080", "\u00e9", "\u2028", "\u2029", "\u20ac", "\ufb33", "\ufeff", "\uffff"]
    + ["\U0001f600", "\U0010ffff", "\ud800", "\udfff", "\udbff"]  # lone surrogates included
)


def _number(rng: random.Random) -> float | int:
    pick = rng.random()
    if pick < 0.25:
        return rng.choice(_TRICKY_NUMBERS)
    if pick < 0.55:
        while True:
            value = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
            if math.isfinite(value):
                return float(value)
    if pick < 0.75:
        return rng.randint(-(10**rng.randint(1, 25)), 10 ** rng.randint(1, 25))
    mantissa = rng.randint(1, 10**rng.randint(1, 17))
    return float(f"{mantissa}e{rng.randint(-30, 30)}")


def _string(rng: random.Random) -> str:
    return "".join(rng.choice(_CHARS) for _ in range(rng.randint(0, 8)))


def _value(rng: random.Random, depth: int) -> Any:
    pick = rng.random()
    if depth > 3 or pick < 0.45:
        return rng.choice([_number, _string, lambda r: r.choice([True, False, None])])(rng)
    if pick < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {_string(rng): _value(rng, depth + 1) for _ in range(rng.randint(0, 6))}


def _ours(doc: Any) -> str | None:
    try:
        return canonicalize_str(doc)
    except ValueError:
        return None


def test_matches_the_canonicalize_npm_package_on_10000_documents() -> None:
    rng = random.Random(8785)
    docs = [_value(rng, 0) for _ in range(10_000)]
    docs += [from_bits(bits) for bits, _ in RFC_NUMBERS]
    module = NODE_MODULES / "canonicalize" / "lib" / "canonicalize.js"
    assert module.exists(), f"{module} is missing: run npm ci at the repository root"
    script = (
        "const { pathToFileURL } = require('node:url');"
        f"import(pathToFileURL({json.dumps(str(module))}).href).then(({{ default: canonicalize }}) => {{"
        "  let input = ''; process.stdin.setEncoding('utf8');"
        "  process.stdin.on('data', (c) => { input += c; });"
        "  process.stdin.on('end', () => {"
        "    const docs = JSON.parse(input);"
        "    const out = docs.map((d) => { try { return canonicalize(d); } catch { return null; } });"
        "    process.stdout.write(JSON.stringify(out));"
        "  });"
        "});"
    )
    # ensure_ascii: lone surrogates travel as \\ud800 escapes, which JSON.parse turns back into them
    proc = subprocess.run(
        [node_bin(), "-e", script],
        input=json.dumps(docs, ensure_ascii=True),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    expected = json.loads(proc.stdout)
    assert len(expected) == len(docs)
    mismatches = [(d, e, got) for d, e in zip(docs, expected) if (got := _ours(d)) != e]
    assert mismatches == [], mismatches[:3]
    refused = sum(1 for e in expected if e is None)
    assert 100 < refused < 5000  # lone surrogates were generated, and refused by both alike
    for (_, rfc), got in zip(RFC_NUMBERS, expected[-len(RFC_NUMBERS) :]):
        assert got == rfc  # the npm package agrees with RFC 8785's table too
