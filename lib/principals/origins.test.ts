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
    const at = (path: string) => parseCallbackUrl(`https://good.example${path}`)!;
    expect(pathWithin(at("/hooks"), "/hooks")).toBe(true);
    expect(pathWithin(at("/hooks/"), "/hooks")).toBe(true);
    expect(pathWithin(at("/hooks/x"), "/hooks")).toBe(true);
    expect(pathWithin(at("/hooksevil"), "/hooks")).toBe(false);
    expect(pathWithin(at("/"), "/hooks")).toBe(false);
    expect(pathWithin(at("/anything/at/all"), "/")).toBe(true);
  });

  it("compares decoded segments: an encoded letter is the same name", () => {
    const at = (path: string) => parseCallbackUrl(`https://good.example${path}`)!;
    expect(pathWithin(at("/ho%6Fks/x"), "/hooks")).toBe(true);
    expect(pathWithin(at("/hooks%20x"), "/hooks")).toBe(false);
    expect(pathWithin(at("/caf%C3%A9/x"), "/café")).toBe(true);
  });

  it.each([
    "/hooks/%2e%2e",
    "/hooks/%2E",
    "/hooks%2fx",
    "/hooks%5cx",
    "/hooks;x",
    "/hooks//x",
    "/hooks\\x",
    "/hooks/%zz",
  ])("a prefix with escapes is refused: %j", (input) => {
    expect(() => parsePathPrefix(input)).toThrow(expect.objectContaining({ code: "invalid_field" }));
  });
});

/**
 * SSRF corpus, path-prefix part: with `/hooks` bound, each of these could reach another path
 * on the receiver once a server or proxy decodes or normalises it. Every one must lie outside the
 * prefix, while the whole-origin binding (`/`) still covers it and the control URL stays inside.
 */
const PATH_ESCAPES: Array<[string, string]> = [
  ["https://good.example/hooks/../admin", "dot segments"],
  ["https://good.example/hooks/./x", "dot segments"],
  ["https://good.example/hooks/x/..", "dot segments"],
  ["https://good.example/hooks/%2e%2e/admin", "dot segments"],
  ["https://good.example/hooks/%2E%2E/admin", "dot segments"],
  ["https://good.example/hooks/.%2e/admin", "dot segments"],
  ["https://good.example/hooks/%2e", "dot segments"],
  ["https://good.example/hooks/..%2fadmin", "encoded slash"],
  ["https://good.example/hooks/x%2F..%2F..%2Fadmin", "encoded slash"],
  ["https://good.example/hooks/..%5cadmin", "encoded backslash"],
  ["https://good.example/hooks/%2e%2e%5cadmin", "encoded dot"],
  ["https://good.example/hooks/x%2e%2e", "encoded dot"],
  ["https://good.example/hooks\\..\\admin", "backslash"],
  ["https://good.example/hooks/..\\admin", "backslash"],
  ["https:\\\\good.example\\hooks\\x", "backslash"],
  ["https://good.example/hooks;/../admin", "dot segments"],
  ["https://good.example/hooks;x=1/y", "; parameter"],
  ["https://good.example/hooks/x;jsessionid=1", "; parameter"],
  ["https://good.example/hooks//admin", "empty segment"],
  ["https://good.example/hooks/x//", "empty segment"],
  ["https://good.example//hooks/x", "empty segment"],
  ["https://good.example/hooks/.\t./admin", "control"],
  ["https://good.example/hooks/.\n./admin", "control"],
  [" https://good.example/hooks/x", "control"],
  ["https://good.example/hooks/%00/x", "control"],
  ["https://good.example/hooks/%c0%ae%c0%ae/admin", "malformed"],
  ["https://good.example/hooks/%/x", "malformed"],
];

describe("SSRF corpus: callback path-prefix escapes", () => {
  it("has at least 25 entries", () => expect(PATH_ESCAPES.length).toBeGreaterThanOrEqual(25));

  it.each(PATH_ESCAPES)("%j lies outside /hooks (%s)", (raw) => {
    const url = parseCallbackUrl(raw);
    expect(url).not.toBeNull();
    expect(url!.segments).toBeNull();
    expect(url!.problem).toEqual(expect.any(String));
    expect(pathWithin(url!, "/hooks")).toBe(false);
    expect(pathWithin(url!, "/")).toBe(true);
    const control = parseCallbackUrl("https://good.example/hooks/x?y=%2e%2e;z#frag")!;
    expect(pathWithin(control, "/hooks")).toBe(true);
  });
});

describe("parseCallbackUrl", () => {
  it("parses to scheme, host, effective port and path", () => {
    expect(parseCallbackUrl("https://GOOD.example/hooks/x?y=1")).toEqual({
      scheme: "https",
      host: "good.example",
      port: 443,
      pathname: "/hooks/x",
      segments: ["hooks", "x"],
    });
    expect(parseCallbackUrl("https://GOOD.example/hooks/../x?y=1")).toMatchObject({
      pathname: "/x",
      segments: null,
      problem: "dot segments or characters the URL parser rewrites",
    });
    expect(parseCallbackUrl("https://user@good.example/")).toBeNull();
    expect(parseCallbackUrl("javascript:alert(1)")).toBeNull();
    expect(parseCallbackUrl("not a url")).toBeNull();
  });
});
