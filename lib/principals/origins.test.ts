import { describe, expect, it } from "vitest";
import { formatOrigin, parseCallbackUrl, parseOrigin, parsePathPrefix, pathWithin } from "./origins";

describe("parseOrigin", () => {
  it("normalises scheme, host case, default ports and IPv6", () => {
    expect(parseOrigin("https://Hooks.Example.COM")).toEqual({ scheme: "https", host: "hooks.example.com", port: 443 });
    expect(parseOrigin("HTTP://a.example:80")).toEqual({ scheme: "http", host: "a.example", port: 80 });
    expect(parseOrigin("https://a.example:8443/")).toEqual({ scheme: "https", host: "a.example", port: 8443 });
    expect(parseOrigin("http://[0:0::1]:3000")).toEqual({ scheme: "http", host: "[::1]", port: 3000 });
    expect(formatOrigin(parseOrigin("https://a.example:443"))).toBe("https://a.example");
    expect(formatOrigin(parseOrigin("http://a.example:8080"))).toBe("http://a.example:8080");
  });

  it.each([
    "a.example",
    "ftp://a.example",
    "https://u:p@a.example",
    "https://a.example/path",
    "https://a.example?q",
    "https://a.example#f",
    "",
  ])("rejects %j", (input) => {
    expect(() => parseOrigin(input)).toThrow(expect.objectContaining({ code: "invalid_field", status: 422 }));
  });
});

describe("path prefixes", () => {
  it("defaults to / and drops a trailing slash", () => {
    expect(parsePathPrefix(undefined)).toBe("/");
    expect(parsePathPrefix("/")).toBe("/");
    expect(parsePathPrefix("/hooks/")).toBe("/hooks");
  });

  it.each(["hooks", "//evil.example", "/a/../b", "/a/./b", "/a?x", "/a#x", "/a b"])("rejects %j", (input) => {
    expect(() => parsePathPrefix(input)).toThrow(expect.objectContaining({ code: "invalid_field" }));
  });

  it("matches at segment boundaries only", () => {
    expect(pathWithin("/hooks", "/hooks")).toBe(true);
    expect(pathWithin("/hooks/x", "/hooks")).toBe(true);
    expect(pathWithin("/hooksevil", "/hooks")).toBe(false);
    expect(pathWithin("/", "/hooks")).toBe(false);
    expect(pathWithin("/anything/at/all", "/")).toBe(true);
  });
});

describe("parseCallbackUrl", () => {
  it("parses to scheme, host, effective port and path", () => {
    expect(parseCallbackUrl("https://GOOD.example/hooks/../x?y=1")).toEqual({
      scheme: "https",
      host: "good.example",
      port: 443,
      pathname: "/x",
    });
    expect(parseCallbackUrl("https://user@good.example/")).toBeNull();
    expect(parseCallbackUrl("javascript:alert(1)")).toBeNull();
    expect(parseCallbackUrl("not a url")).toBeNull();
  });
});
