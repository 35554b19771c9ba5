/** The `date-time` / `uri` predicates agree with ajv-formats (the reference validator) on a corpus. */
import { describe, expect, it } from "vitest";
import { createAjv } from "../../../test/support/spec";
import { dateTimeToMillis, isDateTime, isUri } from "./formats";

const ajv = createAjv();
const ajvDateTime = ajv.compile({ type: "string", format: "date-time" });
const ajvUri = ajv.compile({ type: "string", format: "uri" });

/** A cross product of date-time pieces: good, bad and edge spellings of every component. */
function dateTimeCorpus(): string[] {
  const dates = [
    "2026-06-04",
    "2024-02-29",
    "2023-02-29",
    "2000-02-29",
    "1900-02-29",
    "2026-04-31",
    "2026-13-01",
    "2026-00-10",
    "0000-01-01",
    "2026-6-04",
    "20260604",
  ];
  const seps = ["T", "t", " ", "\t", "\n", "_", "", "TT"];
  const times = [
    "15:22:08",
    "00:00:00",
    "23:59:59",
    "23:59:60",
    "00:59:60",
    "24:00:00",
    "12:60:00",
    "12:00:61",
    "15:22:08.5",
    "15:22:08.123456789",
    "15:22:08.",
    "15:22",
    "1:22:08",
    "22:59:60",
    "23:58:60",
  ];
  const zones = [
    "Z",
    "z",
    "",
    "+00:00",
    "-00:00",
    "+01:00",
    "-01:00",
    "+0100",
    "+01",
    "+24:00",
    "+23:60",
    "+05:30",
    "-23:59",
    "+1",
    "+01:0",
    "Z ",
    " Z",
  ];
  const out: string[] = [];
  for (const d of dates)
    for (const s of seps) for (const t of times) for (const z of zones) out.push(`${d}${s}${t}${z}`);
  return out;
}

const URIS = [
  "https://hub.example/v1/messages/msg_01H",
  "https://agent.example/ma2h/resolve?x=1&y=%20#frag",
  "http://user:pw@host:8080/p/a/t/h;params?q#f",
  "urn:isbn:0451450523",
  "mailto:a@b.example",
  "file:///etc/hosts",
  "s3://bucket/key with space",
  "https://exa mple.com/",
  "https://example.com/%zz",
  "https://example.com/%41",
  "relative/path",
  "/absolute/path",
  "//host/path",
  "foo:",
  "foo:?q",
  "foo:#f",
  "foo:/",
  "foo://",
  "1http://x",
  "h-t.t+p://x",
  "https://[::1]/",
  "https://[::1]:8443/x",
  "https://[2001:db8::7]/c=GB?objectClass?one",
  "https://[1:2:3:4:5:6:7:8]/",
  "https://[1:2:3:4:5:6:7:8:9]/",
  "https://[1::2::3]/",
  "https://[::ffff:192.0.2.1]/",
  "https://[::ffff:192.0.2.256]/",
  "https://[1:2:3:4:5:6:7::]/",
  "https://[::]/",
  "https://[v1.fe80::a+en1]/",
  "https://[zz::1]/",
  "https://[fe80::1%25eth0]/",
  "https://192.168.0.1:99999/",
  "https://host:abc/",
  "https://ex\u00e4mple.com/",
  "https://example.com/\u00e4",
  "http://example.com/a|b",
  "http://example.com/a\\b",
  "http://example.com/<script>",
  "javascript:alert(1)",
  "data:text/plain;base64,SGVsbG8=",
  "",
  ":",
  "https://example.com/ ",
  "http:/[::1]/x",
  "http:/host:80/x",
];

/** Deterministic pseudo-random strings over the characters that matter to the URI grammar. */
function uriFuzz(count: number): string[] {
  let seed = 0x5eed;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const alphabet = [
    "a",
    "Z",
    "0",
    "9",
    "-",
    ".",
    "_",
    "~",
    "!",
    "$",
    "&",
    "'",
    "(",
    "*",
    "+",
    ",",
    ";",
    "=",
    ":",
    "@",
    "/",
    "?",
    "#",
    "[",
    "]",
    "%",
    "%2F",
    "%g1",
    " ",
    "\u00e9",
    "|",
    "{",
    "1::",
    "::1",
    "v1.",
  ];
  const prefixes = ["https://", "http:/", "x:", "ftp://u@", "s:[", "https://[", "", "1a:"];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = prefixes[Math.floor(next() * prefixes.length)]!;
    const len = Math.floor(next() * 12);
    for (let j = 0; j < len; j++) s += alphabet[Math.floor(next() * alphabet.length)]!;
    out.push(s);
  }
  return out;
}

describe("formats agree with ajv-formats", () => {
  it("date-time on a generated corpus", () => {
    const corpus = dateTimeCorpus();
    const disagreements = corpus.filter((s) => isDateTime(s) !== ajvDateTime(s));
    expect(disagreements).toEqual([]);
    expect(corpus.filter(isDateTime).length).toBeGreaterThan(100); // the corpus exercises both sides
  });

  it("uri on a hand-picked corpus", () => {
    const disagreements = URIS.filter((s) => isUri(s) !== ajvUri(s));
    expect(disagreements).toEqual([]);
    expect(URIS.filter(isUri).length).toBeGreaterThan(10);
  });

  it("uri on a generated corpus", () => {
    const corpus = uriFuzz(20_000);
    expect(corpus.filter((s) => isUri(s) !== ajvUri(s))).toEqual([]);
    expect(corpus.filter(isUri).length).toBeGreaterThan(1000);
  });
});

describe("dateTimeToMillis", () => {
  it("matches Date.parse for ordinary timestamps and applies offsets", () => {
    expect(dateTimeToMillis("2026-06-04T15:22:08Z")).toBe(Date.parse("2026-06-04T15:22:08Z"));
    expect(dateTimeToMillis("2026-06-04T17:22:08+02:00")).toBe(Date.parse("2026-06-04T15:22:08Z"));
    expect(dateTimeToMillis("2026-06-04 10:22:08-0500")).toBe(Date.parse("2026-06-04T15:22:08Z"));
    expect(dateTimeToMillis("2026-06-04t15:22:08.250z")).toBe(Date.parse("2026-06-04T15:22:08.250Z"));
  });

  it("keeps sub-millisecond fractions, years below 100 and rejects non-date-times", () => {
    expect(dateTimeToMillis("2026-06-04T15:22:08.0005Z")).toBeGreaterThan(Date.parse("2026-06-04T15:22:08Z"));
    expect(new Date(dateTimeToMillis("0050-01-01T00:00:00Z")!).getUTCFullYear()).toBe(50);
    expect(dateTimeToMillis("2026-02-30T00:00:00Z")).toBeNull();
    expect(dateTimeToMillis("tomorrow")).toBeNull();
  });
});
