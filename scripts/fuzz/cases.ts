/**
 * The fuzz cases: generated and mutated envelopes, resolve, cancel, ack and directive bodies,
 * ids, query strings and headers, sent to every route family of the Hub — the protocol (`/v1`,
 * `/.well-known`), the pages, sign-in and the auth routes — plus request heads no client library
 * would send. Everything is drawn from fast-check arbitraries, so a seed (and a path) replays a case.
 */
import fc from "fast-check";
import { buildEnvelope, type Verb } from "../../test/support/envelope";

/** What the cases can use: live credentials and ids of the Hub under test. */
export interface FuzzContext {
  slug: string;
  agentIds: string[];
  /** agent id → API key, of `slug` */
  agentKeys: Record<string, string>;
  /** Another account's agent key: its objects must look unknown. */
  foreignKey: string;
  /** An operator's personal access token of `slug`. */
  humanToken: string;
  /** A browser session token of the same operator (the session cookie's value). */
  sessionToken: string;
  /** Existing messages and directives. */
  messageIds: string[];
  directiveIds: string[];
  publicUrl: string;
  /** The build's Server Actions and a page that serves each (from Next's server-reference manifest). */
  actions: Array<{ id: string; path: string }>;
}

export interface FuzzCase {
  /** The route family, for the counts. */
  family: string;
  method: string;
  /** The request-target, as sent. */
  target: string;
  headers: Array<[string, string]>;
  body?: string;
  /** A request head sent verbatim instead of the one built from method/target/headers. */
  rawHead?: string;
  /** Send only a prefix of the body, then hang up. */
  hangUp?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Strings, ids and JSON values

const NASTY_STRINGS = [
  "",
  " ",
  "..",
  "../..",
  "%2e%2e",
  "%2E%2e%2f",
  "%2f",
  "%5c",
  "%00",
  "\u0000",
  "%zz",
  "%",
  "%c0%af",
  "%ed%a0%80",
  "%ff%fe",
  "\ud800",
  "\udfff",
  "🙂",
  "é",
  "\u202e",
  "<script>alert(1)</script>",
  "'; DROP TABLE messages; --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, sent as it is
  "${jndi:ldap://x}",
  "{{7*7}}",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "prototype",
  "NaN",
  "-1",
  "0",
  "1e308",
  "9".repeat(40),
  "a".repeat(300),
  "x".repeat(9000),
];

const nasty = fc.constantFrom(...NASTY_STRINGS);
const anyString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 3, arbitrary: nasty },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 200, maxLength: 2000 }) },
);

function idArb(ctx: FuzzContext, kind: "message" | "directive"): fc.Arbitrary<string> {
  const known = kind === "message" ? ctx.messageIds : ctx.directiveIds;
  const prefix = kind === "message" ? "msg_" : "dir_";
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.constantFrom(...(kind === "message" ? ctx.directiveIds : ctx.messageIds)) },
    { weight: 2, arbitrary: fc.stringMatching(/^[0-9a-z]{26}$/).map((s) => prefix + s) },
    { weight: 2, arbitrary: fc.constantFrom(...known).map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...known).map((id) => `${id}%00`) },
    { weight: 1, arbitrary: fc.constantFrom(...known).map((id) => `${id}/..`) },
    { weight: 3, arbitrary: anyString.map((s) => encodeLoosely(s)) },
  );
}

/** Percent-encodes what cannot appear raw in a request line, keeping every other byte as it came. */
function encodeLoosely(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it encodes
  return s.replace(/[\s\u0000-\u001f\u007f#?]|[^\u0000-\u007f]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return "%ED%A0%80"; // a lone surrogate, as its (invalid) UTF-8 bytes
    }
  });
}

/** encodeURIComponent, with a lone surrogate sent as its (invalid) UTF-8 bytes instead of throwing. */
function encodeStrictly(s: string): string {
  return Array.from(s, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return "%ED%A0%80";
    }
  }).join("");
}

const jsonLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 2 ** 53 + 1, -(2 ** 63), 1e308, 5e-324),
  anyString,
);
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: jsonLeaf },
  { weight: 1, arbitrary: fc.array(jsonLeaf, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(anyString, jsonLeaf, { maxKeys: 5 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
);

// ---------------------------------------------------------------------------------------------
// Mutating a valid body

/** Every path into a JSON value (objects and arrays), the root included. */
function paths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const out = [at];
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) out.push(...paths(value[i], [...at, i]));
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

type Mutation =
  | { op: "set"; pick: number; value: unknown }
  | { op: "delete"; pick: number }
  | { op: "add"; pick: number; key: string; value: unknown }
  | { op: "wrap"; pick: number; depth: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), pick: fc.nat(), value: jsonValue }),
  fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({
    op: fc.constant("add" as const),
    pick: fc.nat(),
    key: fc.oneof(anyString, fc.constantFrom("__proto__", "constructor", "ma2h_version", "type", "id", "extensions")),
    value: jsonValue,
  }),
  fc.record({ op: fc.constant("wrap" as const), pick: fc.nat(), depth: fc.integer({ min: 1, max: 80 }) }),
);

function mutate(base: unknown, mutations: Mutation[]): unknown {
  let root = structuredClone(base);
  for (const m of mutations) {
    const all = paths(root);
    const path = all[m.pick % all.length] as Array<string | number>;
    const parent = path.slice(0, -1).reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], root);
    const key = path[path.length - 1];
    const get = () => (key === undefined ? root : (parent as Record<string | number, unknown>)[key]);
    const put = (v: unknown) => {
      if (key === undefined) root = v;
      else (parent as Record<string | number, unknown>)[key] = v;
    };
    if (m.op === "set") put(m.value);
    else if (m.op === "delete") {
      if (key === undefined) root = {};
      else if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete (parent as Record<string, unknown>)[key];
    } else if (m.op === "add") {
      const target = get();
      if (target && typeof target === "object" && !Array.isArray(target))
        Object.defineProperty(target, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
      else put({ [m.key]: m.value });
    } else {
      let v = get();
      for (let i = 0; i < m.depth; i++) v = i % 2 ? [v] : { v };
      put(v);
    }
  }
  return root;
}

/** Text-level damage to a JSON document: what a broken client or a proxy might send. */
type TextDamage =
  | { op: "truncate"; at: number }
  | { op: "insert"; at: number; text: string }
  | { op: "replace"; text: string }
  | { op: "none" };

const textDamage: fc.Arbitrary<TextDamage> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ op: "none" as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("insert" as const),
      at: fc.nat(),
      text: fc.oneof(
        anyString,
        fc.constantFrom("\\u0000", "\\ud800", "\\udc00x", "1e999", "-", ",", "}", "]", '"', "\\", "\u0000", "NaN"),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("replace" as const),
      text: fc.oneof(
        anyString,
        fc.constantFrom(
          "[]",
          "null",
          "0",
          '""',
          "{}",
          '{"a":1,"a":2}',
          `${"[".repeat(5000)}${"]".repeat(5000)}`,
          `${'{"a":'.repeat(200)}1${"}".repeat(200)}`,
          '{"ma2h_version":"0.6","title":"\\ud800"}',
          '{"x":1e400}',
          "\ufeff{}",
        ),
      ),
    }),
  },
);

function damage(text: string, d: TextDamage): string {
  if (d.op === "truncate") return text.slice(0, d.at % (text.length + 1));
  if (d.op === "insert") {
    const at = d.at % (text.length + 1);
    return text.slice(0, at) + d.text + text.slice(at);
  }
  if (d.op === "replace") return d.text;
  return text;
}

function bodyArb(bases: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc
    .tuple(bases, fc.array(mutation, { maxLength: 3 }), textDamage)
    .map(([base, ms, d]) => damage(JSON.stringify(mutate(base, ms)) ?? "", d));
}

// ---------------------------------------------------------------------------------------------
// Valid bodies to start from

const VERSIONS = ["0.2", "0.3", "0.4", "0.5", "0.6"];

function envelopeBase(ctx: FuzzContext): fc.Arbitrary<unknown> {
  const requests = [
    {
      mode: "select",
      options: [
        { value: "ship", label: "Ship" },
        { value: "hold", label: "Hold" },
      ],
    },
    { mode: "confirm" },
    { mode: "input", input: { kind: "text" } },
    {
      mode: "select",
      multiple: true,
      options: [
        { value: "a", label: "A" },
        { value: "b", label: "B" },
      ],
    },
  ];
  return fc
    .record({
      verb: fc.constantFrom<Verb>("notify", "ask", "task"),
      agent: fc.constantFrom(...ctx.agentIds),
      n: fc.nat(),
      version: fc.constantFrom(...VERSIONS),
      request: fc.constantFrom(...requests),
      extra: fc.constantFrom<Record<string, unknown>>(
        {},
        { body: "**markdown** <img src=x onerror=alert(1)>" },
        { priority: "urgent" },
        { expires_at: "2030-01-01T00:00:00Z" },
        { to: `agent:${ctx.agentIds[1]}` },
        { callback: { url: "https://127.0.0.1:1/hook", auth: { scheme: "hmac", secret_ref: "cb" } } },
        { callback: { url: "http://169.254.169.254/latest/meta-data" } },
        { tags: ["a", "b"], context: { links: [{ url: "javascript:alert(1)", label: "x" }] } },
      ),
    })
    .map(({ verb, agent, n, version, request, extra }) =>
      buildEnvelope(verb, agent, n, { version, request, extra, idempotencyKey: (i) => `fuzz-${i}` }),
    );
}

const RESOLVE_BASES: unknown[] = [
  { resolution: "answered", value: "ship" },
  { resolution: "answered", value: ["a", "b"] },
  { resolution: "answered", value: "free text", comment: "ok" },
  { resolution: "declined", comment: "no" },
  { resolution: "done" },
  { resolution: "cancelled" },
  { resolution: "expired" },
];

function directiveBase(ctx: FuzzContext): fc.Arbitrary<unknown> {
  return fc.record({
    to: fc.constantFrom(`agent:${ctx.agentIds[0]}`, `agent:${ctx.agentIds[1]}`, "agent:nobody/none", "human:x"),
    title: fc.constantFrom("Pause deploys", "x"),
    body: fc.constantFrom("Incident on prod.", "<b>bold</b>"),
    priority: fc.constantFrom("low", "normal", "high", "urgent"),
  });
}

// ---------------------------------------------------------------------------------------------
// Query strings and headers

/** `wait` values that never hold the connection long (a held long-poll is not a fuzz finding). */
function isLongWait(v: string): boolean {
  const n = Number(v);
  return v.trim() !== "" && Number.isFinite(n) && n > 0.2;
}

const QUERY_KEYS = ["wait", "since", "max", "session", "account", "cursor", "status", "limit", "as", "verb", "x"];

const queryArb: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: anyString }),
      fc.oneof(
        fc.constantFrom("0", "0.1", "-1", "1e999", "NaN", "Infinity", "", " ", "2026-12-01T00:00:00Z", "yesterday"),
        anyString,
      ),
      fc.boolean(), // percent-encode, or send as it came
    ),
    { maxLength: 4 },
  )
  .map((pairs) => {
    if (pairs.length === 0) return "";
    const parts = pairs.map(([k, v, enc]) => {
      const value = k === "wait" && isLongWait(v) ? `${v}x` : v;
      return enc ? `${encodeStrictly(k)}=${encodeStrictly(value)}` : `${encodeLoosely(k)}=${encodeLoosely(value)}`;
    });
    return `?${parts.join("&")}`;
  });

/** The families whose routes are for people (an operator's token), not agents. */
const HUMAN_FAMILIES = new Set(["directive", "directive-read", "presence"]);

/**
 * The credential of a case: mostly the right one for its route (an agent key, or for the human
 * routes the operator's token), so most cases get past authentication into the domain code; the
 * rest the wrong kind, another account's, none, malformed ones, or a session cookie.
 */
function authArb(ctx: FuzzContext): fc.Arbitrary<Array<[string, string]> | "own"> {
  const key = ctx.agentKeys[ctx.agentIds[0] as string] as string;
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant("own" as const) },
    { weight: 2, arbitrary: fc.constant<Array<[string, string]>>([["authorization", `Bearer ${key}`]]) },
    { weight: 3, arbitrary: fc.constant<Array<[string, string]>>([["authorization", `Bearer ${ctx.humanToken}`]]) },
    { weight: 1, arbitrary: fc.constant<Array<[string, string]>>([["authorization", `Bearer ${ctx.foreignKey}`]]) },
    { weight: 1, arbitrary: fc.constant<Array<[string, string]>>([]) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          `bearer ${key}`,
          `Bearer  ${key}`,
          `Bearer ${key} extra`,
          `Basic ${Buffer.from(`x:${key}`).toString("base64")}`,
          "Bearer ",
          "Bearer",
          `Bearer ${key.slice(0, -1)}`,
          `Bearer ${key}${key}`,
          `Bearer ${"A".repeat(8000)}`,
          "Bearer %00",
        )
        .map((v): Array<[string, string]> => [["authorization", v]]),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom("__Secure-next-auth.session-token", "next-auth.session-token", "next-auth.csrf-token"),
          fc.oneof(fc.constant(ctx.sessionToken), anyString.map(encodeCookieLoosely)),
        )
        .map(
          ([name, value]): Array<[string, string]> => [
            ["cookie", `${name}=${value}`],
            ["origin", ctx.publicUrl],
            ["sec-fetch-site", "same-origin"],
          ],
        ),
    },
  );
}

/** A cookie value with only the characters a header line can carry (the rest percent-encoded or not). */
function encodeCookieLoosely(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it encodes
  return s.replace(/[\u0000-\u001f\u007f]|[^\u0000-\u007f]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return "%ED%A0";
    }
  });
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "",
];

const extraHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constantFrom(
        "x-forwarded-for",
        "x-forwarded-proto",
        "x-forwarded-host",
        "forwarded",
        "origin",
        "sec-fetch-site",
        "accept",
        "accept-encoding",
        "accept-language",
        "if-none-match",
        "range",
        "x-request-id",
        "idempotency-key",
        "user-agent",
        "referer",
        "x-middleware-subrequest",
        "next-router-state-tree",
        "rsc",
        "next-action",
      ),
      fc.oneof(
        fc.constantFrom("https", "http", "1.2.3.4", "evil.example", "null", "*/*", "text/html", "1", "bytes=0-1"),
        anyString.map(encodeCookieLoosely),
      ),
    ),
    fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), anyString.map(encodeCookieLoosely)),
  ),
  { maxLength: 3 },
);

// ---------------------------------------------------------------------------------------------
// Requests by route family

type Built = Omit<FuzzCase, "headers"> & { headers?: Array<[string, string]> };

function families(ctx: FuzzContext): Array<{ weight: number; arbitrary: fc.Arbitrary<Built> }> {
  const msg = idArb(ctx, "message");
  const dir = idArb(ctx, "directive");
  const json = (family: string, method: string, target: fc.Arbitrary<string>, body: fc.Arbitrary<string>) =>
    fc.record({ family: fc.constant(family), method: fc.constant(method), target, body });
  const get = (family: string, target: fc.Arbitrary<string>) =>
    fc.record({ family: fc.constant(family), method: fc.constant("GET"), target });
  return [
    {
      weight: 14,
      arbitrary: json(
        "submit",
        "POST",
        queryArb.map((q) => `/v1/messages${q}`),
        bodyArb(envelopeBase(ctx)),
      ),
    },
    {
      weight: 8,
      arbitrary: get(
        "pull",
        fc.tuple(msg, queryArb).map(([id, q]) => `/v1/messages/${id}${q}`),
      ),
    },
    {
      weight: 8,
      arbitrary: json(
        "resolve",
        "POST",
        fc.tuple(msg, queryArb).map(([id, q]) => `/v1/messages/${id}/resolve${q}`),
        bodyArb(fc.constantFrom(...RESOLVE_BASES)),
      ),
    },
    {
      weight: 4,
      arbitrary: json(
        "cancel",
        "POST",
        msg.map((id) => `/v1/messages/${id}/cancel`),
        bodyArb(fc.constantFrom({}, { reason: "no longer needed" })),
      ),
    },
    {
      weight: 4,
      arbitrary: json(
        "ack",
        "POST",
        msg.map((id) => `/v1/messages/${id}/ack`),
        bodyArb(fc.constantFrom({}, { note: "seen" }, { state: "seen" })),
      ),
    },
    {
      weight: 6,
      arbitrary: get(
        "drain",
        queryArb.map((q) => `/v1/inbox${q}`),
      ),
    },
    {
      weight: 5,
      arbitrary: json(
        "inbox-ack",
        "POST",
        fc.constant("/v1/inbox/ack"),
        bodyArb(fc.constantFrom(...ctx.directiveIds).map((id) => ({ ids: [id], note: "on it" }))),
      ),
    },
    { weight: 6, arbitrary: json("directive", "POST", fc.constant("/v1/directives"), bodyArb(directiveBase(ctx))) },
    {
      weight: 4,
      arbitrary: get(
        "directive-read",
        fc.tuple(dir, queryArb).map(([id, q]) => `/v1/directives/${id}${q}`),
      ),
    },
    {
      weight: 4,
      arbitrary: get(
        "presence",
        fc
          .tuple(
            fc.oneof(fc.constantFrom(...ctx.agentIds), anyString.map(encodeLoosely)),
            fc.oneof(fc.constant(`?account=${ctx.slug}`), queryArb),
          )
          .map(([a, q]) => `/v1/agents/${a}/presence${q}`),
      ),
    },
    {
      weight: 3,
      arbitrary: get(
        "discovery",
        fc
          .tuple(
            fc.constantFrom(
              "/.well-known/ma2h",
              "/.well-known/ma2h-keys",
              "/.well-known/ma2h-capability",
              "/v1/openapi.json",
            ),
            queryArb,
          )
          .map(([p, q]) => p + q),
      ),
    },
    {
      weight: 5,
      arbitrary: fc.record({
        family: fc.constant("unknown-path"),
        method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"),
        target: fc
          .tuple(
            fc.constantFrom("/v1", "/.well-known", "/v1/messages", "/v1/agents", "/v1/inbox", "/v1/directives"),
            fc.array(anyString.map(encodeLoosely), { maxLength: 4 }),
            queryArb,
          )
          .map(([root, segs, q]) => [root, ...segs].join("/") + q),
        body: fc.option(fc.constantFrom("{}", "x"), { nil: undefined }),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        family: fc.constant("wrong-method"),
        method: fc.constantFrom("PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "GET", "POST"),
        target: fc.constantFrom(
          "/v1/messages",
          `/v1/messages/${ctx.messageIds[0]}`,
          `/v1/messages/${ctx.messageIds[0]}/resolve`,
          "/v1/inbox",
          "/v1/inbox/ack",
          "/v1/directives",
          "/.well-known/ma2h",
          "/v1/openapi.json",
        ),
      }),
    },
    ...(ctx.actions.length ? [{ weight: 4, arbitrary: serverActionArb(ctx) }] : []),
    {
      weight: 5,
      arbitrary: fc.record({
        family: fc.constant("page"),
        method: fc.constantFrom("GET", "GET", "GET", "POST", "HEAD"),
        target: fc
          .tuple(
            fc.constantFrom(
              "/",
              "/signin",
              "/inbox",
              `/inbox/${ctx.messageIds[0]}`,
              "/inbox/agents",
              `/inbox/agents/${ctx.slug}/${ctx.agentIds[0]}`,
              "/inbox/directives",
              "/settings",
              "/settings/notifications",
              "/admin",
              `/admin/${ctx.slug}`,
              "/e/",
              "/healthz",
              "/readyz",
              "/api/auth/session",
              "/api/auth/csrf",
              "/api/auth/providers",
              "/api/auth/signin",
              "/api/auth/callback/oidc",
              "/api/push/key",
              "/api/push/subscriptions",
              "/api/slack/interactions",
              "/slack/bind",
            ),
            fc.oneof(fc.constant(""), anyString.map(encodeLoosely)),
            queryArb,
          )
          .map(([p, extra, q]) => (extra ? `${p}${p.endsWith("/") ? "" : "/"}${extra}` : p) + q),
        body: fc.option(fc.constantFrom("{}", "payload=%7B%7D", "x"), { nil: undefined }),
      }),
    },
  ];
}

/** React reply encodings of Server Action arguments, valid and not (server/action-reply.ts). */
const ACTION_REPLIES: unknown[] = [
  [],
  [null],
  [null, "$K1"],
  ["msg_x", { kind: "answer", value: "ship" }],
  ["msg_x", { kind: "complete", checklist: [true] }],
  [["msg_x"], "decline"],
  ["$Q1"],
  ["$@1"],
  ["$1"],
  ["$nabc"],
  [`$n${"9".repeat(400)}`],
  ["$D2026-12-05T00:00:00Z", "$undefined", "$-0", "$NaN", "$Infinity", "$$x"],
  [{ a: "$W2" }],
  ["$A1"],
  ["$zz"],
  ["$W1", "$i1", "$F1", "$R1", "$B1"],
  [["k", "v"]],
  0,
];

/** A Server Action of the build called as a script would, with generated and mutated arguments. */
function serverActionArb(ctx: FuzzContext): fc.Arbitrary<Built> {
  return fc
    .record({
      action: fc.constantFrom(...ctx.actions),
      root: bodyArb(fc.constantFrom(...ACTION_REPLIES)),
      part: fc.option(bodyArb(fc.constantFrom(...ACTION_REPLIES)), { nil: undefined }),
      multipart: fc.boolean(),
      partLast: fc.boolean(),
    })
    .map(({ action, root, part, multipart, partLast }): Built => {
      const headers: Array<[string, string]> = [
        ["next-action", action.id],
        ["origin", ctx.publicUrl],
      ];
      if (!multipart) return { family: "server-action", method: "POST", target: action.path, body: root, headers };
      const field = (name: string, value: string) =>
        `--fz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      // A referenced part first, as React's client writes them; `partLast` sends it after the root.
      const extra = part === undefined ? "" : field("1", part);
      const body = `${partLast ? "" : extra}${field("0", root)}${partLast ? extra : ""}--fz--\r\n`;
      headers.push(["content-type", "multipart/form-data; boundary=fz"]);
      return { family: "server-action", method: "POST", target: action.path, body, headers };
    });
}

/** Request heads built by hand: what an HTTP library would refuse to send. */
function rawHeadArb(ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const key = ctx.agentKeys[ctx.agentIds[0] as string] as string;
  return fc
    .record({
      method: fc.constantFrom("GET", "POST", "get", "G\u0000T", "BREW", "CONNECT", "TRACE", "M-SEARCH", ""),
      target: fc.oneof(
        fc.constantFrom(
          "/v1/messages",
          "/v1/inbox",
          "/v1/messages/%",
          "/v1/messages/%zz",
          "/v1/messages/%00",
          "/v1/../v1/inbox",
          "/v1//messages",
          "/v1/messages/ x",
          "*",
          "http://evil.example/v1/inbox",
          "/v1/inbox?wait=%",
          "/.well-known/ma2h%",
          "/.well-known/..%2fma2h",
          "/\u00e9",
          "",
        ),
        anyString.map((s) => `/v1/${s.replace(/[\r\n]/g, "")}`),
      ),
      version: fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.1x", "http/1.1", ""),
      headerLines: fc.array(
        fc.oneof(
          fc.constantFrom(
            `Authorization: Bearer ${key}`,
            "Content-Type: application/json",
            "Content-Length: 5",
            "Content-Length: -1",
            "Content-Length: 99999999999",
            "Transfer-Encoding: chunked",
            "Transfer-Encoding: gzip, chunked",
            "Host: 127.0.0.1",
            "Host:",
            "Host: a b",
            "Cookie: next-auth.session-token=%",
            "X-Forwarded-Proto: https",
            "Bad Header: x",
            ": empty-name",
            "No-Colon",
            "X-Obs-Fold: a\r\n b",
            `X-Long: ${"a".repeat(20_000)}`,
            "X-Nul: a\u0000b",
          ),
          anyString.map((s) => s.replace(/[\r\n]/g, "")),
        ),
        { maxLength: 4 },
      ),
      body: fc.constantFrom("", "{}", "0\r\n\r\n", "zz\r\nxx\r\n", '{"a":1}'),
    })
    .map(({ method, target, version, headerLines, body }) => ({
      family: "raw-head",
      method,
      target,
      headers: [],
      body,
      rawHead: `${method} ${target} ${version}\r\n${["Host: 127.0.0.1", ...headerLines, "Connection: close"].join("\r\n")}\r\n\r\n`,
    }));
}

/** A JSON request whose client goes away before the body is whole. */
function hangUpArb(ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const key = ctx.agentKeys[ctx.agentIds[0] as string] as string;
  return fc
    .record({
      target: fc.constantFrom(
        "/v1/messages",
        `/v1/messages/${ctx.messageIds[0]}/resolve`,
        "/v1/inbox/ack",
        "/v1/directives",
      ),
      body: bodyArb(envelopeBase(ctx)),
    })
    .map(({ target, body }) => ({
      family: "hang-up",
      method: "POST",
      target,
      headers: [
        ["authorization", `Bearer ${target === "/v1/directives" ? ctx.humanToken : key}`],
        ["content-type", "application/json"],
      ],
      body,
      hangUp: true,
    }));
}

/** The `agent.id` of a body that still parses as an envelope (its agent's own key is the right credential). */
function envelopeAgent(body: string | undefined): string {
  try {
    return String((JSON.parse(body ?? "") as { agent?: { id?: unknown } })?.agent?.id ?? "");
  } catch {
    return "";
  }
}

/** Every fuzz case: the route families with generated headers, raw heads and hang-ups. */
export function fuzzCase(ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const withHeaders = fc
    .tuple(
      fc.oneof(...families(ctx)),
      authArb(ctx),
      // Mostly the JSON the routes want; sometimes another type.
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      ),
      extraHeaders,
    )
    .map(([built, auth, contentType, extra]): FuzzCase => {
      const own = HUMAN_FAMILIES.has(built.family)
        ? ctx.humanToken
        : (ctx.agentKeys[envelopeAgent(built.body)] ?? ctx.agentKeys[ctx.agentIds[0] as string]);
      const credential: Array<[string, string]> = auth === "own" ? [["authorization", `Bearer ${own}`]] : auth;
      const headers: Array<[string, string]> = [...credential, ...extra, ...(built.headers ?? [])];
      const typed = headers.some(([name]) => name === "content-type");
      const defaultType = built.family === "server-action" ? "text/plain;charset=UTF-8" : "application/json";
      if (built.body !== undefined && !typed) headers.push(["content-type", contentType ?? defaultType]);
      return { ...built, headers };
    });
  return fc.oneof(
    { weight: 18, arbitrary: withHeaders },
    { weight: 1, arbitrary: rawHeadArb(ctx) },
    { weight: 1, arbitrary: hangUpArb(ctx) },
  );
}

/** The bytes of a case on the wire. */
export function requestBytes(c: FuzzCase, host: string): { bytes: Buffer; halfClose: boolean } {
  const body = Buffer.from(c.body ?? "", "utf8");
  if (c.rawHead !== undefined)
    return { bytes: Buffer.concat([Buffer.from(c.rawHead, "latin1"), body]), halfClose: false };
  const lines = [`${c.method} ${c.target} HTTP/1.1`, `Host: ${host}`];
  for (const [name, value] of c.headers) lines.push(`${name}: ${value}`);
  if (c.body !== undefined) lines.push(`Content-Length: ${body.length}`);
  lines.push("Connection: close");
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "utf8");
  if (c.hangUp) return { bytes: Buffer.concat([head, body.subarray(0, Math.floor(body.length / 2))]), halfClose: true };
  return { bytes: Buffer.concat([head, body]), halfClose: false };
}

/** One line naming a case, for a failure report (bodies and tokens shortened). */
export function describeCase(c: FuzzCase): string {
  // Credentials are shortened to their prefix: a report is pasted into issues and logs.
  const short = (s: string, n: number) =>
    (s.length > n ? `${s.slice(0, n)}…(${s.length})` : s)
      .replace(/(ma2h_(?:key|pat)_[A-Za-z0-9_-]{4})[A-Za-z0-9_-]+/g, "$1…")
      .replace(/(session-token=[^;\s]{4})[^;\s]{8,}/g, "$1…");
  const head =
    c.rawHead !== undefined ? `raw ${JSON.stringify(short(c.rawHead, 300))}` : `${c.method} ${short(c.target, 200)}`;
  const headers = c.headers.map(([k, v]) => `${k}: ${short(v, 60)}`).join("; ");
  return `[${c.family}] ${head}${headers ? ` {${headers}}` : ""}${c.body !== undefined ? ` body ${JSON.stringify(short(c.body, 300))}` : ""}${c.hangUp ? " (hang-up)" : ""}`;
}
