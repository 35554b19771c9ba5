import { describe, expect, it } from "vitest";
import { vector as loadVector } from "../../../test/support/spec";
import { jcs, sha256Hex } from "./jcs";

describe("RFC 8785 JCS (§9.2)", () => {
  it("formats numbers like ECMAScript Number::toString", () => {
    expect(jcs(1e21)).toBe("1e+21");
    expect(jcs(1e-7)).toBe("1e-7");
    expect(jcs(-0)).toBe("0");
    expect(jcs(1234.5)).toBe("1234.5");
    expect(jcs(9007199254740991)).toBe("9007199254740991");
    expect(jcs(1e20)).toBe("100000000000000000000");
    expect(jcs([0.1, -0.001, 333333333.3333333])).toBe("[0.1,-0.001,333333333.3333333]");
  });

  it("orders keys by UTF-16 code units, recursively, with no whitespace", () => {
    expect(jcs({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}');
    // U+20AC (€) sorts before U+1F600 (😀, surrogates D83D…) by code unit, not by code point.
    expect(jcs({ "\u{1F600}": 1, "\u20ac": 2, "\r": 3, "1": 4, "a\u0080": 5 })).toBe(
      '{"\\r":3,"1":4,"a\u0080":5,"€":2,"😀":1}',
    );
  });

  it("keeps strings as-is (no Unicode normalization) and escapes minimally", () => {
    expect(jcs("e\u0301")).toBe('"e\u0301"');
    expect(jcs('\u2028"\\\u001f')).toBe('"\u2028\\"\\\\\\u001f"');
  });

  it("rejects what JSON cannot carry", () => {
    expect(() => jcs(Number.NaN)).toThrow();
    expect(() => jcs(Number.POSITIVE_INFINITY)).toThrow();
  });

  it("reproduces dp-004's canonical payload and payload_sha256", () => {
    const vector = loadVector("dp-004-numeric-payload") as {
      payload: unknown;
      payload_canonical_jcs: string;
      payload_sha256: string;
    };
    const canonical = jcs(vector.payload);
    expect(canonical).toBe(vector.payload_canonical_jcs);
    expect(sha256Hex(canonical)).toBe(vector.payload_sha256);
  });
});
