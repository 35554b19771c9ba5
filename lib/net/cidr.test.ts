import { describe, expect, it } from "vitest";
import { addressInAny, parseCidrList } from "./cidr";

describe("parseCidrList (MA2H_TRUSTED_PROXIES)", () => {
  it("reads the default and a mixed list, spaces and empty entries aside", () => {
    const loopback = parseCidrList("127.0.0.1/32,::1/128");
    expect(addressInAny("127.0.0.1", loopback)).toBe(true);
    expect(addressInAny("::1", loopback)).toBe(true);
    expect(addressInAny("::ffff:127.0.0.1", loopback)).toBe(true);
    expect(addressInAny("127.0.0.2", loopback)).toBe(false);
    const mixed = parseCidrList(" 10.0.4.0/24 , ,2001:db8::/32, 192.0.2.7");
    expect(mixed).toHaveLength(3);
    expect(addressInAny("10.0.4.200", mixed)).toBe(true);
    expect(addressInAny("10.0.5.1", mixed)).toBe(false);
    expect(addressInAny("192.0.2.7", mixed)).toBe(true);
  });

  it("refuses a malformed entry by name, and a list with no entry", () => {
    for (const bad of ["10.0.0.0/33", "10.0.0.0/8/1", "hub.example.com", "10.0.0.0/ 8", "::1/129", "010.0.0.1/32"])
      expect(() => parseCidrList(`127.0.0.1/32,${bad}`), bad).toThrow(JSON.stringify(bad.trim()));
    expect(() => parseCidrList(" , ")).toThrow("names no range");
  });
});
