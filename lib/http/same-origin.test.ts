import { describe, expect, it } from "vitest";
import { isSameOrigin } from "./same-origin";

const HUB = "https://hub.example.test";

describe("isSameOrigin", () => {
  it("accepts the Hub's own public origin", () => {
    expect(isSameOrigin(HUB, null, HUB)).toBe(true);
    expect(isSameOrigin(HUB, "same-origin", `${HUB}/`)).toBe(true);
    expect(isSameOrigin("http://127.0.0.1:3000", null, "http://127.0.0.1:3000")).toBe(true);
    // Default ports are the same origin whichever way the public URL spells them.
    expect(isSameOrigin(HUB, null, "https://hub.example.test:443")).toBe(true);
  });

  it("refuses any other origin, whatever Sec-Fetch-Site claims", () => {
    expect(isSameOrigin("https://evil.example", null, HUB)).toBe(false);
    expect(isSameOrigin("https://evil.example", "same-origin", HUB)).toBe(false);
    expect(isSameOrigin("http://hub.example.test", null, HUB)).toBe(false);
    expect(isSameOrigin("https://hub.example.test:8443", null, HUB)).toBe(false);
    expect(isSameOrigin("https://sub.hub.example.test", null, HUB)).toBe(false);
  });

  it("refuses an opaque or unparsable Origin", () => {
    expect(isSameOrigin("null", "same-origin", HUB)).toBe(false);
    expect(isSameOrigin("", "same-origin", HUB)).toBe(false);
    expect(isSameOrigin("not a url", null, HUB)).toBe(false);
  });

  it("without an Origin, needs Sec-Fetch-Site: same-origin", () => {
    expect(isSameOrigin(null, "same-origin", HUB)).toBe(true);
    expect(isSameOrigin(null, "same-site", HUB)).toBe(false);
    expect(isSameOrigin(null, "cross-site", HUB)).toBe(false);
    expect(isSameOrigin(null, "none", HUB)).toBe(false);
    expect(isSameOrigin(null, null, HUB)).toBe(false);
  });
});
