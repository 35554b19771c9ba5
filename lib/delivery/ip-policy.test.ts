import { describe, expect, it } from "vitest";
import { formatIPv6, parseIPv4, parseIPv6 } from "../net/ip-parse";
import { classifyAddress, isLoopbackAddress, parseHostLiteral } from "./ip-policy";

// [address, reason fragment] — each must be refused, and the reason must name the range (§9.4).
const REFUSED: Array<[string, string]> = [
  // IPv4 ranges: first, inner and last address where it matters
  ["0.0.0.0", "unspecified"],
  ["0.255.255.255", "unspecified"],
  ["10.0.0.0", "private"],
  ["10.255.255.255", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.0.1", "private"],
  ["192.168.255.255", "private"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.0.1", "link-local"],
  ["169.254.255.255", "link-local"],
  ["100.64.0.1", "carrier-grade NAT"],
  ["100.127.255.255", "carrier-grade NAT"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.254", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["192.0.2.1", "TEST-NET-1"],
  ["198.51.100.7", "TEST-NET-2"],
  ["203.0.113.255", "TEST-NET-3"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["192.0.0.8", "IETF protocol"],
  ["192.88.99.1", "6to4 relay"],
  // cloud metadata
  ["169.254.169.254", "metadata"],
  ["169.254.170.2", "metadata"],
  ["100.100.100.200", "metadata"],
  ["192.0.0.192", "metadata"],
  ["168.63.129.16", "metadata"],
  ["fd00:ec2::254", "metadata"],
  // IPv6 ranges
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf:ffff::1", "link-local"],
  ["fc00::1", "unique-local"],
  ["fd00::1", "unique-local"],
  ["fdff:ffff::1", "unique-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast"],
  ["100::1", "discard"],
  ["2001::1", "Teredo"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
  ["2001:db8::1", "documentation"],
  ["2001:2::1", "IETF protocol"],
  ["3fff::1", "documentation"],
  ["5f00::1", "SRv6"],
  ["64:ff9b:1::a00:1", "NAT64 local-use"],
  ["4000::1", "outside global unicast"],
  ["1::", "outside global unicast"],
  // IPv6 forms embedding IPv4 — judged by the embedded address
  ["::ffff:127.0.0.1", "IPv4-mapped 127.0.0.1: loopback"],
  ["::ffff:7f00:1", "IPv4-mapped 127.0.0.1: loopback"],
  ["::ffff:10.1.2.3", "IPv4-mapped 10.1.2.3: private"],
  ["::ffff:a9fe:a9fe", "IPv4-mapped 169.254.169.254: cloud metadata"],
  ["::ffff:0.0.0.0", "IPv4-mapped 0.0.0.0: unspecified"],
  ["::ffff:0:127.0.0.1", "IPv4-translated 127.0.0.1: loopback"],
  ["::127.0.0.1", "IPv4-compatible 127.0.0.1: loopback"],
  ["::7f00:1", "IPv4-compatible 127.0.0.1: loopback"],
  ["::a00:1", "IPv4-compatible 10.0.0.1: private"],
  ["64:ff9b::7f00:1", "NAT64 127.0.0.1: loopback"],
  ["64:ff9b::169.254.169.254", "NAT64 169.254.169.254: cloud metadata"],
  ["64:ff9b::c0a8:101", "NAT64 192.168.1.1: private"],
  ["2002:7f00:1::", "6to4 127.0.0.1: loopback"],
  ["2002:a9fe:a9fe::1", "6to4 169.254.169.254: cloud metadata"],
  ["2002:c0a8:101:1::1", "6to4 192.168.1.1: private"],
  ["2600:1f18::5efe:10.0.0.1", "ISATAP 10.0.0.1: private"],
  ["2600:1f18::200:5efe:7f00:1", "ISATAP 127.0.0.1: loopback"],
  // not IP addresses at all: fail closed
  ["", "not an IP"],
  ["localhost", "not an IP"],
  ["127.1", "not an IP"],
  ["0177.0.0.1", "not an IP"],
  ["01.2.3.4", "not an IP"],
  ["2130706433", "not an IP"],
  ["1.2.3.4%eth0", "not an IP"],
  ["::ffff:1.2.3", "not an IP"],
  ["1:2:3:4:5:6:7:8:9", "not an IP"],
  [":::1", "not an IP"],
];

// Public addresses, including edges just outside refused ranges and embedded forms carrying a
// public IPv4 (judged by it, so allowed).
const ALLOWED = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "169.253.255.255",
  "192.0.1.255",
  "192.167.255.255",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2001:200::1",
  "::ffff:8.8.8.8",
  "::8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
  "2600:1f18::5efe:8.8.8.8",
];

describe("classifyAddress (§9.4)", () => {
  it.each(REFUSED)("refuses %s (%s)", (ip, reason) => {
    const verdict = classifyAddress(ip);
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toContain(reason);
  });

  it.each(ALLOWED)("allows public %s", (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: true });
  });
});

describe("isLoopbackAddress (the only refusal the dev allowlist waives)", () => {
  it.each(["127.0.0.1", "127.9.9.9", "::1"])("%s is loopback", (ip) => expect(isLoopbackAddress(ip)).toBe(true));
  it.each(["::ffff:127.0.0.1", "0.0.0.0", "::", "169.254.169.254", "10.0.0.1", "fe80::1", "::1%lo", "localhost"])(
    "%s is not",
    (ip) => expect(isLoopbackAddress(ip)).toBe(false),
  );
});

describe("parseHostLiteral: every IPv4 spelling ends as one canonical address", () => {
  it.each([
    ["2130706433", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0X7F.0X0.0X0.0X1", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["127.0.0.1.", "127.0.0.1"],
    ["0", "0.0.0.0"],
    ["0x", "0.0.0.0"],
    ["0xa9fea9fe", "169.254.169.254"],
    ["169.254.43518", "169.254.169.254"],
    ["4294967295", "255.255.255.255"],
  ])("%s → %s", (host, address) => {
    expect(parseHostLiteral(host)).toEqual({ kind: "ip", address, family: 4 });
  });

  it.each([
    ["[::1]", "::1"],
    ["[0:0:0:0:0:0:0:1]", "::1"],
    ["[::ffff:127.0.0.1]", "::ffff:7f00:1"],
    ["[::FFFF:7F00:1]", "::ffff:7f00:1"],
    ["[64:ff9b::127.0.0.1]", "64:ff9b::7f00:1"],
    ["[2002:7f00:0001:0000::]", "2002:7f00:1::"],
    ["[fd00:0ec2:0:0:0:0:0:0254]", "fd00:ec2::254"],
    ["[1:0:0:2:0:0:0:3]", "1:0:0:2::3"],
    ["[1:2:3:4:5:6:7:8]", "1:2:3:4:5:6:7:8"],
  ])("%s → %s", (host, address) => {
    expect(parseHostLiteral(host)).toEqual({ kind: "ip", address, family: 6 });
  });

  it.each(["receiver.test", "example.com", "localhost", "1.2.3.example", "0x7g.example", "xn--n3h.example"])(
    "%s is a name",
    (host) => {
      expect(parseHostLiteral(host)).toEqual({ kind: "name" });
    },
  );

  it.each([
    "4294967296",
    "1.2.3.4.5",
    "256.0.0.1",
    "1.2.65536",
    "09.0.0.1",
    "1..2",
    "[::1%25lo]",
    "[fe80::1%eth0]",
    "[::g]",
    "[1:2:3:4:5:6:7:8:9]",
  ])("%s is invalid", (host) => {
    expect(parseHostLiteral(host)).toEqual({ kind: "invalid" });
  });
});

describe("strict parsers", () => {
  it("round-trips IPv6 text through bytes", () => {
    for (const [text, canonical] of [
      ["::", "::"],
      ["1::", "1::"],
      ["::1:0:0:0", "::1:0:0:0"],
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["2001:0db8:0000:0000:0000:0000:0002:0001", "2001:db8::2:1"],
    ] as const) {
      expect(formatIPv6(parseIPv6(text)!)).toBe(canonical);
    }
  });
  it("rejects loose IPv4 text", () => {
    expect(parseIPv4("1.2.3.4")).toBe(0x01020304);
    for (const bad of ["1.2.3", "1.2.3.4.", " 1.2.3.4", "1.2.3.04", "1.2.3.256"]) expect(parseIPv4(bad)).toBeNull();
  });
  it("rejects malformed IPv6 text", () => {
    for (const bad of ["1.2.3.4::", "::1::", "1:2:3:4:5:6:7", "12345::", "::ffff:1.2.3.4:1", "g::"])
      expect(parseIPv6(bad)).toBeNull();
  });
});
