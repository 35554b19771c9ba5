import { describe, expect, it } from "vitest";
import { base32, ID_PREFIX, mintId, type IdKind } from "./ids";

describe("ids", () => {
  it.each(Object.keys(ID_PREFIX) as IdKind[])("%s ids carry their prefix and 128 random bits", (kind) => {
    const id = mintId(kind);
    expect(id.startsWith(ID_PREFIX[kind])).toBe(true);
    // 16 bytes in Crockford base32 = 26 characters, lower case, no i/l/o/u.
    expect(id.slice(ID_PREFIX[kind].length)).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it("mints the §8.7.1 namespaces", () => {
    expect(mintId("message")).toMatch(/^msg_.+$/);
    expect(mintId("resolution")).toMatch(/^res_.+$/);
    expect(mintId("directive")).toMatch(/^dir_.+$/);
    expect(mintId("session")).toMatch(/^sess_.+$/);
  });

  it("does not repeat", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => mintId("message")));
    expect(ids.size).toBe(10_000);
  });

  it("base32 encodes 5 bits per character", () => {
    expect(base32(new Uint8Array([]))).toBe("");
    expect(base32(new Uint8Array([0xff]))).toBe("zw");
    expect(base32(new Uint8Array([0, 0, 0, 0, 0]))).toBe("00000000");
  });
});
