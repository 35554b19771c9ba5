/**
 * §9.3 sealed state (packages/agent/src/state.ts): a round trip of any JSON value, a fresh blob per
 * seal, every part tampered, a wrong key, an unknown version and short keys refused.
 */
// covers: packages/agent/src/state.ts
import { describe, expect, it } from "vitest";
import { openState, sealState, StateIntegrityError } from "../src/state";

const KEY = "k".repeat(16) + "é".repeat(8); // 32 UTF-8 bytes from 24 characters
const OTHER = "0123456789abcdef0123456789abcdef";
const VALUE = { step: 3, plan: ["migrate", "deploy"], note: "é✓\u2028", nested: { ok: true, n: -0.001 } };

/** Flips one bit of a base64url field's bytes, keeping it well-formed. */
function flip(blob: Record<string, unknown>, part: string): Record<string, unknown> {
  const bytes = Buffer.from(blob[part] as string, "base64url");
  bytes[bytes.length - 1]! ^= 1;
  return { ...blob, [part]: bytes.toString("base64url") };
}

describe("sealState / openState", () => {
  it("round-trips JSON values with a string or a byte key; the blob is a JSON object hiding the value", () => {
    for (const value of [VALUE, "plain", 42, null, [1, "two"]]) {
      const blob = sealState(value, KEY);
      expect(JSON.parse(JSON.stringify(blob))).toEqual(blob); // usable as `state` as is
      expect(openState(blob, KEY)).toEqual(value);
    }
    const bytes = new Uint8Array(32).fill(7);
    expect(openState(sealState(VALUE, bytes), bytes)).toEqual(VALUE);
    const blob = sealState(VALUE, KEY);
    expect(Object.keys(blob).sort()).toEqual(["ct", "iv", "ma2h_sealed", "salt", "tag"]);
    expect(JSON.stringify(blob)).not.toContain("migrate");
  });

  it("seals the same value differently each time (random salt and nonce)", () => {
    const a = sealState(VALUE, KEY);
    const b = sealState(VALUE, KEY);
    expect(a.iv).not.toBe(b.iv);
    expect(a.salt).not.toBe(b.salt);
    expect(a.ct).not.toBe(b.ct);
  });

  it.each(["salt", "iv", "ct", "tag"])("a tampered %s does not open", (part) => {
    const blob = sealState(VALUE, KEY);
    expect(() => openState(flip(blob, part), KEY)).toThrow(StateIntegrityError);
  });

  it("a changed version, a missing or malformed part, a non-object and a wrong key do not open", () => {
    const blob = sealState(VALUE, KEY);
    const broken: unknown[] = [
      { ...blob, ma2h_sealed: "v2" },
      { ...blob, tag: undefined },
      { ...blob, iv: `${blob.iv}A` },
      { ...blob, ct: `${blob.ct}=` },
      { ...blob, salt: 42 },
      "sealed",
      null,
      [blob],
    ];
    for (const b of broken) expect(() => openState(b, KEY), JSON.stringify(b)).toThrow(StateIntegrityError);
    expect(() => openState(blob, OTHER)).toThrow(StateIntegrityError);
    // The error says nothing of the key or the content.
    try {
      openState(blob, OTHER);
    } catch (e) {
      expect((e as Error).message).not.toContain(OTHER);
      expect((e as Error).message).not.toContain("migrate");
    }
  });

  it("refuses keys shorter than 32 bytes, naming why", () => {
    expect(() => sealState(VALUE, "x".repeat(31))).toThrow(/at least 32/);
    expect(() => sealState(VALUE, new Uint8Array(16))).toThrow(TypeError);
    expect(() => openState(sealState(VALUE, KEY), "short")).toThrow(TypeError);
    expect(() => sealState(undefined, KEY)).toThrow(TypeError);
  });
});
