import { describe, expect, it } from "vitest";
import { addressIn, parseCidr } from "./cidr";
import { hostAllowed, parseHostPolicy } from "./host-policy";

describe("CIDR ranges", () => {
  it("parses v4 and v6 ranges and bare addresses; refuses loose forms", () => {
    expect(parseCidr("10.0.0.0/8")).toMatchObject({ family: 4, bits: 8 });
    expect(parseCidr("::1/128")).toMatchObject({ family: 6, bits: 128 });
    expect(parseCidr("192.0.2.7")).toMatchObject({ family: 4, bits: 32 });
    for (const bad of [
      "10.0.0.0/33",
      "::/129",
      "010.0.0.0/8",
      "10.0.0.0/8/1",
      "10.0.0.0/-1",
      "10.1/16",
      "example.com",
    ]) {
      expect(parseCidr(bad), bad).toBeNull();
    }
  });

  it("matches at the prefix length; a mapped IPv4 peer is judged as IPv4", () => {
    const loop = parseCidr("127.0.0.1/32")!;
    expect(addressIn("127.0.0.1", loop)).toBe(true);
    expect(addressIn("::ffff:127.0.0.1", loop)).toBe(true);
    expect(addressIn("127.0.0.2", loop)).toBe(false);
    const net = parseCidr("2001:db8::/32")!;
    expect(addressIn("2001:db8:1::5", net)).toBe(true);
    expect(addressIn("2001:db9::5", net)).toBe(false);
    expect(addressIn("not-an-ip", net)).toBe(false);
    expect(addressIn("10.0.0.1", parseCidr("0.0.0.0/0")!)).toBe(true);
  });
});

describe("MA2H_CALLBACK_ORIGIN_POLICY", () => {
  const policy = parseHostPolicy("*.example.com, hooks.partner.test, 203.0.113.0/24, 2001:db8::/32");

  it.each([
    ["hooks.example.com", true],
    ["a.b.example.com", true],
    ["example.com", false], // a suffix entry covers hosts strictly below it
    ["evilexample.com", false],
    ["example.com.evil.test", false],
    ["hooks.partner.test", true],
    ["x.hooks.partner.test", false],
    ["203.0.113.9", true],
    ["203.0.114.1", false],
    ["[2001:db8::1]", true],
    ["[2001:db9::1]", false],
    ["localhost", false],
  ])("%s → %s", (host, allowed) => {
    expect(hostAllowed(policy, host)).toBe(allowed);
  });

  it("compares names in the parsed form (case, IDNA)", () => {
    const idn = parseHostPolicy("*.BÜCHER.example");
    expect(hostAllowed(idn, new URL("https://shop.bücher.example").hostname)).toBe(true);
  });

  it("refuses a malformed entry rather than ignoring it", () => {
    for (const bad of ["*.", "https://x.example.com", "x.example.com:443", "10.0.0.0/40", "*.exa mple.com", "a/b"]) {
      expect(() => parseHostPolicy(bad), bad).toThrow(/neither/);
    }
  });
});
