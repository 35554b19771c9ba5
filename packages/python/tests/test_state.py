"""seal_state / open_state (§9.3): a round trip, a fresh salt and iv per blob, and one
StateIntegrityError for every way a blob can fail to open (tampered part, wrong key, unknown
version, non-canonical encoding, not a blob); short keys are refused."""

from __future__ import annotations

import pytest

from ma2h._keys import b64u, unb64u
from ma2h.errors import StateIntegrityError
from ma2h.state import open_state, seal_state

KEY = "0123456789abcdef0123456789abcdef"


def test_round_trip_with_str_and_bytes_keys() -> None:
    value = {"step": 3, "items": ["a", "é"], "n": None, "f": 0.5}
    blob = seal_state(value, KEY)
    assert set(blob) == {"ma2h_sealed", "salt", "iv", "ct", "tag"} and blob["ma2h_sealed"] == "v1"
    assert len(unb64u(blob["salt"])) == 16 and len(unb64u(blob["iv"])) == 12 and len(unb64u(blob["tag"])) == 16
    assert open_state(blob, KEY) == value
    assert open_state(seal_state([1, 2], KEY.encode()), KEY) == [1, 2]
    other = seal_state(value, KEY)
    assert other["salt"] != blob["salt"] and other["iv"] != blob["iv"]


@pytest.mark.parametrize("part", ["salt", "iv", "ct", "tag"])
def test_a_flipped_bit_in_any_part_does_not_open(part: str) -> None:
    blob = seal_state({"approve": False}, KEY)
    raw = bytearray(unb64u(blob[part]))
    raw[0] ^= 1
    with pytest.raises(StateIntegrityError):
        open_state({**blob, part: b64u(bytes(raw))}, KEY)


def test_wrong_key_version_and_shapes_do_not_open() -> None:
    blob = seal_state("x", KEY)
    bad_blobs: list[object] = [
        {**blob, "ma2h_sealed": "v2"},
        {**blob, "salt": blob["salt"] + "="},  # padded: not the one encoding
        {**blob, "iv": blob["iv"][:-1]},
        {k: v for k, v in blob.items() if k != "tag"},
        [blob],
        None,
        "sealed",
    ]
    with pytest.raises(StateIntegrityError):
        open_state(blob, KEY + "!")
    for bad in bad_blobs:
        with pytest.raises(StateIntegrityError):
            open_state(bad, KEY)


def test_short_keys_and_non_json_values_are_refused() -> None:
    with pytest.raises(TypeError):
        seal_state({}, "short")
    with pytest.raises(TypeError):
        open_state({}, b"x" * 31)
    with pytest.raises(TypeError):
        seal_state({"x": object()}, KEY)
    with pytest.raises(TypeError):
        seal_state(float("nan"), KEY)
