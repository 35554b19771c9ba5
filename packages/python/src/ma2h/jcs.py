"""RFC 8785 JSON Canonicalization Scheme (JCS), as §9.2 requires for every signed context and digest.

Byte-compatible with the TypeScript SDK (which uses the ``canonicalize`` npm package): object keys
sorted by UTF-16 code units, no whitespace, strings escaped exactly as ECMAScript ``JSON.stringify``
does, and numbers written as ECMAScript ``Number.prototype.toString`` writes an IEEE-754 double.

A Python ``int`` is a JSON number, and JSON numbers are doubles on the wire (a JavaScript signer
parses the same text into a double): an ``int`` is therefore converted to ``float`` first, so
``12345678901234567890`` canonicalizes as ``12345678901234567000`` — exactly what the Hub signed.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence

__all__ = ["canonicalize", "canonicalize_str", "sha256_hex", "format_number", "json_string"]

_SHORT_ESCAPES = {
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0C: "\\f",
    0x0D: "\\r",
    0x22: '\\"',
    0x5C: "\\\\",
}


def json_string(text: str) -> str:
    """``text`` as a JSON string literal, escaped exactly as ECMAScript ``JSON.stringify`` does.

    Only ``"``, ``\\`` and the C0 controls are escaped (the usual short forms, otherwise
    ``\\u00xx`` in lowercase hex); a lone surrogate becomes ``\\udxxx`` (well-formed
    ``JSON.stringify``). Everything else is written as is, never normalized.
    """
    text = _join_pairs(text)
    out: list[str] = ['"']
    for ch in text:
        code = ord(ch)
        if code < 0x20 or code == 0x22 or code == 0x5C:
            short = _SHORT_ESCAPES.get(code)
            out.append(short if short is not None else f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _join_pairs(text: str) -> str:
    """Adjacent high+low surrogate code points as the one character they encode in UTF-16."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def _canonical_string(text: str) -> str:
    joined = _join_pairs(text)
    if _SURROGATE.search(joined) is not None:
        raise ValueError("a lone surrogate cannot be canonicalized (RFC 8785 needs well-formed Unicode)")
    return json_string(joined)


def format_number(value: float | int) -> str:
    """ECMAScript ``Number::toString`` of ``value`` taken as an IEEE-754 double (RFC 8785 §3.2.2.3).

    Raises ``ValueError`` for NaN and the infinities (JSON cannot carry them) and ``OverflowError``
    for an ``int`` beyond the double range.
    """
    number = float(value)
    if math.isnan(number) or math.isinf(number):
        raise ValueError("NaN and Infinity cannot be canonicalized")
    if number == 0:
        return "0"  # -0 as well
    sign = "-" if number < 0 else ""
    # repr gives the shortest digits that round-trip (as ECMAScript requires), closest to the value.
    text = repr(abs(number))
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, fraction = mantissa.partition(".")
    if fraction == "0":
        fraction = ""
    digits = (whole + fraction).lstrip("0")
    # the decimal point's position relative to the start of `digits` (ECMAScript's n)
    n = len(whole) + exponent - (len(whole + fraction) - len((whole + fraction).lstrip("0")))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        exp = f"e+{e}" if e >= 0 else f"e-{-e}"
        body = (digits[0] + "." + digits[1:] if k > 1 else digits) + exp
    return sign + body


def _sort_key(key: str) -> bytes:
    # UTF-16BE bytes compare exactly as UTF-16 code units do.
    return key.encode("utf-16-be", "surrogatepass")


def _write(value: object, out: list[str], depth: int) -> None:
    if depth > 1000:
        raise ValueError("the value nests too deeply to canonicalize")
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_canonical_string(value))
    elif isinstance(value, (int, float)):
        out.append(format_number(value))
    elif isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"object keys must be strings, not {type(key).__name__}")
        out.append("{")
        first = True
        for key in sorted(value, key=_sort_key):
            if not first:
                out.append(",")
            first = False
            out.append(_canonical_string(key))
            out.append(":")
            _write(value[key], out, depth + 1)
        out.append("}")
    elif isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out, depth + 1)
        out.append("]")
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")


def canonicalize_str(value: object) -> str:
    """The RFC 8785 canonical form of a JSON value (``dict``/``list``/``tuple``/``str``/``int``/
    ``float``/``bool``/``None``) as text. Raises ``TypeError`` for what is not JSON and ``ValueError``
    for NaN, the infinities and a string with a lone surrogate (as the ``canonicalize`` npm package)."""
    out: list[str] = []
    _write(value, out, 0)
    return "".join(out)


def canonicalize(value: object) -> bytes:
    """The RFC 8785 canonical form of a JSON value as UTF-8 bytes (what is hashed and signed)."""
    return canonicalize_str(value).encode("utf-8")


def sha256_hex(data: bytes | str) -> str:
    """Lowercase hex SHA-256 of ``data`` (a ``str`` is hashed as UTF-8)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()
