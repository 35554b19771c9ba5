/**
 * Test-only corpus for schema-parity.test.ts: documents built by applying small edits (set / delete
 * a dotted path) to valid bases, aimed at every keyword and conditional of the v0.6 schemas. Pure
 * data; no I/O.
 */
type Doc = Record<string, unknown>;
type Edits = Record<string, unknown>;

/** Marks a path for deletion in an edit set. */
export const DEL = Symbol("delete");

function setPath(doc: Doc, dotted: string, value: unknown): void {
  const keys = dotted.split(".");
  let cur: Record<string, unknown> = doc;
  for (const key of keys.slice(0, -1)) {
    const next = cur[key];
    if (typeof next !== "object" || next === null) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  if (value === DEL) delete cur[last];
  else cur[last] = value;
}

export function variant(base: Doc, edits: Edits): Doc {
  const doc = structuredClone(base);
  for (const [p, v] of Object.entries(edits)) setPath(doc, p, v);
  return doc;
}

const expand = (bases: Doc[], edits: Edits[]) => bases.flatMap((b) => [b, ...edits.map((e) => variant(b, e))]);

const long = (n: number, ch = "x") => ch.repeat(n);

const MESSAGE_EDITS: Edits[] = [
  ...[
    "ma2h_version",
    "type",
    "created_at",
    "agent",
    "title",
    "agent.id",
    "agent.run_id",
    "agent.runtime",
    "idempotency_key",
    "request",
    "action",
    "request.mode",
    "action.instructions",
  ].map((p) => ({ [p]: DEL })),
  ...["0.0", "0.2", "0.3", "0.4", "0.5", "0.9", "0.10", "0.03", "0.5.1", "0.", "1.0", "00.5", 5].map((v) => ({
    ma2h_version: v,
  })),
  ...["notify", "ask", "task", "directive", 1].map((v) => ({ type: v })),
  ...[
    "2026-02-30T00:00:00Z",
    "2026-06-04 15:22:08Z",
    "2026-06-04T15:22:08",
    "2026-06-04t15:22:08+05",
    "2026-12-31T23:59:60Z",
    "yesterday",
  ].map((v) => ({ created_at: v, expires_at: v })),
  { title: "" },
  { title: long(200) },
  { title: long(201) },
  { title: long(200, "😀") },
  { title: long(201, "😀") },
  { title: 7 },
  { "agent.session": "sess_01" },
  { "agent.session": "sess_" },
  { "agent.session": "session_1" },
  { "agent.session": "sess_1", ma2h_version: "0.5" },
  { "agent.id": "" },
  { "agent.id": "a#b" },
  { "agent.id": "a#b", to: "agent:x", ma2h_version: "0.5" },
  { "agent.id": "a#b", "agent.session": "sess_1", ma2h_version: "0.5" },
  { "agent.runtime": "lambda" },
  { "agent.labels": { model: "x" } },
  { "agent.labels": { n: 1 } },
  { "agent.extra": { any: true } },
  ...["agent:x", "agent:x#sess_1", "agent:x#y", "human:alice", "agent:", "agent:a/b#sess_9"].flatMap((to) => [
    { to },
    { to, ma2h_version: "0.5" },
    { to, ma2h_version: "0.4" },
  ]),
  { request: { mode: "confirm" } },
  { action: { instructions: "do" } },
  { request: { mode: "confirm" }, action: DEL },
  { request: { mode: "select" } },
  { request: { mode: "select", options: [] } },
  { request: { mode: "select", options: [{ value: "a", label: "A" }] } },
  { request: { mode: "select", options: [{ value: "a" }] } },
  { request: { mode: "select", options: [{ value: 1, label: "A" }] } },
  { request: { mode: "confirm", options: [{ value: "a", label: "A" }] } },
  {
    request: {
      mode: "confirm",
      options: [
        { value: "a", label: "A" },
        { value: "b", label: "B" },
      ],
    },
  },
  {
    request: {
      mode: "confirm",
      options: [
        { value: "a", label: "A" },
        { value: "b", label: "B" },
        { value: "c", label: "C" },
      ],
    },
  },
  { request: { mode: "input" } },
  { request: { mode: "input", schema: {} } },
  { request: { mode: "input", schema: [] } },
  { request: { mode: "vote" } },
  // v0.6 (§5.2): the answer-object input schema, options uniqueItems, allow_edit typed, allow_accept unknown.
  ...[
    { type: "object", properties: { a: { type: "string" } } },
    { properties: { a: { type: "string" } } },
    { type: "object" },
    { type: "object", properties: {} },
    { type: "object", properties: [] },
    { type: "string" },
    { type: ["object", "null"], properties: { a: {} } },
    { type: ["null", "object"], properties: { a: {} } },
    { type: ["string", "number"], properties: { a: {} } },
    { type: ["object", "object"], properties: { a: {} } },
    { type: ["object", 42], properties: { a: {} } },
    { type: ["object", "thing"], properties: { a: {} } },
    { type: [], properties: { a: {} } },
    { type: 5, properties: { a: {} } },
    { type: "array", properties: { a: {} } },
  ].flatMap((schema) => [
    { request: { mode: "input", schema } },
    { request: { mode: "select", options: [{ value: "a", label: "A" }], schema } },
  ]),
  {
    request: {
      mode: "select",
      options: [
        { value: "a", label: "A" },
        { value: "a", label: "A" },
      ],
    },
  },
  {
    request: {
      mode: "select",
      options: [
        { value: "a", label: "A" },
        { value: "a", label: "B" },
      ],
    },
  },
  {
    request: {
      mode: "confirm",
      options: [
        { value: "a", label: "A", description: "d" },
        { description: "d", label: "A", value: "a" },
      ],
    },
  },
  { "request.permissions": { allow_edit: true } },
  { "request.permissions": { allow_edit: "yes" } },
  { "request.permissions": { allow_accept: "anything" } },
  ...["x", { a: 1 }, null, 5, [], true].map((d) => ({ "request.default_on_expire": d })),
  { "request.permissions": { allow_respond: false } },
  { "request.permissions": { allow_respond: "no" } },
  ...[["human:alice"], ["agent:a#b"], ["agent:a#sess_1"], ["bot:x"], ["agent:"], [5]].flatMap((r) => [
    { "request.allowed_resolvers": r, ma2h_version: "0.4" },
    { "request.allowed_resolvers": r, ma2h_version: "0.5" },
    { "action.allowed_resolvers": r, ma2h_version: "0.10" },
  ]),
  ...[
    { mode: "pull" },
    { mode: "push" },
    { mode: "push", url: "https://a.example/cb" },
    { mode: "push", url: "not a uri" },
    { mode: "poll" },
    {},
    { mode: "pull", auth: { scheme: "hmac" } },
    { mode: "pull", auth: { scheme: "hmac", secret_ref: "env:S" } },
    { mode: "pull", auth: { scheme: "hmac", secret_ref: "env:S", token_ref: "env:T" } },
    { mode: "pull", auth: { scheme: "bearer", token_ref: "env:T" } },
    { mode: "pull", auth: { scheme: "bearer", secret_ref: "env:S" } },
    { mode: "pull", auth: { scheme: "apikey", token_ref: "env:T", secret_ref: "env:S" } },
    { mode: "pull", auth: { scheme: "basic", token_ref: "env:T" } },
    { mode: "pull", auth: {} },
  ].flatMap((cb) => [{ "request.callback": cb }, { "action.callback": cb }]),
  { "action.checklist": [{ text: "a" }, { text: "b", done: true }] },
  { "action.checklist": [{ done: true }] },
  { "action.checklist": [{ text: "a", done: "no" }] },
  ...[
    [{ kind: "text", text: "hi" }],
    [{ kind: "text" }],
    [{ kind: "data", data: { a: 1 } }],
    [{ kind: "data", data: [1] }],
    [{ kind: "file", file: { uri: "https://x.example/f" } }],
    [{ kind: "file", file: { uri: "nope" } }],
    [{ kind: "file", file: {} }],
    [{ kind: "image", text: "x" }],
    [{ text: "x" }],
    [{ kind: "text", text: "x", metadata: [] }],
    [{ kind: "text", text: "x", metadata: { a: 1 }, extra: 1 }],
  ].map((context) => ({ context })),
  { priority: "meh" },
  { priority: "urgent" },
  { tags: ["a", 1] },
  { state: [] },
  { state: { any: [1, { x: null }] } },
  { body: 5 },
  { client_ref: 5 },
  { idempotency_key: 5 },
  { sensitive: "yes" },
  { x_extra: { a: 1 }, "request.x_extra": 1, "action.x_extra": 2 },
  { id: "evil", status: "answered" },
];

export function messageDocs(bases: Doc[]): unknown[] {
  return [...expand(bases, MESSAGE_EDITS), null, [], "ask", 42, {}];
}

const RESPONSE_EDITS: Edits[] = [
  ...[
    "ma2h_version",
    "in_reply_to",
    "resolution_id",
    "agent",
    "agent.id",
    "agent.run_id",
    "resolution",
    "response.actor",
    "response.resolved_at",
  ].map((p) => ({ [p]: DEL })),
  ...["0.3", "0.4", "0.5", "0.12", "0.03", "1.0"].flatMap((v) => [
    { ma2h_version: v },
    { ma2h_version: v, resolution_id: "res_1" },
    { ma2h_version: v, resolution_id: "r1" },
  ]),
  ...["answered", "declined", "cancelled", "expired", "completed", "dismissed", "ignored"].flatMap((r) => [
    { resolution: r },
    { resolution: r, "response.checklist": [{ text: "a", done: true }] },
    { resolution: r, "response.checklist": [{ text: "a" }], ma2h_version: "0.5", resolution_id: "res_1" },
  ]),
  ...["system:default_on_expire", "human:alice"].flatMap((actor) => [
    { defaulted: true, resolution: "expired", "response.actor": actor },
    { defaulted: true, resolution: "answered", "response.actor": actor },
    { defaulted: false, "response.actor": actor },
  ]),
  { defaulted: true, resolution: "expired", response: DEL },
  { defaulted: "yes" },
  ...["v", { a: 1 }, [1], 5, null].map((v) => ({ "response.value": v })),
  { "response.actor": "alice" },
  { "response.resolved_at": "now" },
  { "response.edited": 1 },
  { "response.comment": 1 },
  { state: [] },
  { in_reply_to: "" },
  { x: 1, "response.y": 2 },
];

export function responseDocs(bases: Doc[]): unknown[] {
  return expand(bases, RESPONSE_EDITS);
}

export function submitAckDocs(): unknown[] {
  const statuses = [
    "open",
    "delivered",
    "queued",
    "answered",
    "declined",
    "cancelled",
    "expired",
    "completed",
    "dismissed",
    "bounced",
    "acknowledged",
    "created",
  ];
  const destinations: unknown[] = [
    DEL,
    { state: "unknown" },
    { state: "unknown", last_seen: "2026-08-10T11:20:00Z" },
    { state: "online", last_seen: "2026-08-10T11:20:00Z" },
    { state: "offline" },
    { state: "offline", last_seen: "x" },
    { state: "away", last_seen: "2026-08-10T11:20:00Z" },
    { state: "unknown", extra: 1 },
    {},
  ];
  const base: Doc = { id: "msg_1", status: "open", poll_url: "https://hub.example/v1/messages/msg_1" };
  const docs: unknown[] = [];
  for (const status of statuses)
    for (const destination of destinations)
      for (const id of ["msg_1", "m1"]) docs.push(variant(base, { status, destination, id }));
  for (const edits of [
    { id: "" },
    { poll_url: "relative" },
    { review_url: "https://hub.example/inbox/1" },
    { review_url: "no" },
    { extra: 1 },
    { poll_url: DEL },
    { id: DEL },
  ]) {
    docs.push(variant(base, edits));
  }
  return docs;
}

/** Cross product of verb × addressing × status × embedded response × mailbox × delivery. */
export function getMessageDocs(): unknown[] {
  const statuses = [
    "open",
    "delivered",
    "answered",
    "declined",
    "cancelled",
    "expired",
    "completed",
    "dismissed",
    "queued",
    "bounced",
    "acknowledged",
  ];
  const ackEnvelope = {
    ma2h_version: "0.5",
    type: "ack",
    in_reply_to: "msg_1",
    by: "agent:a",
    acked_at: "2026-08-10T11:20:00Z",
  };
  const T = "2026-08-10T11:20:00Z";
  const mailboxes: unknown[] = [
    DEL,
    { state: "queued" },
    { state: "delivered", delivered_at: T },
    { state: "acknowledged", acknowledged_at: T },
    { state: "acknowledged" },
    { state: "bounced", prior: "queued" },
    { state: "bounced", prior: "queued", delivered_at: T },
    { state: "bounced", prior: "delivered", delivered_at: T },
    { state: "expired", delivered_at: T },
    { state: "queued", prior: "queued" },
    { state: "expired" },
  ];
  const deliveries: unknown[] = [
    DEL,
    { state: "delivered-to-agent", delivered_at: T },
    { state: "acknowledged", acknowledged_at: T, ack: ackEnvelope },
    { state: "acknowledged" },
    { state: "expired" },
    { state: "expired", delivered_at: T },
    { state: "delivered-to-agent", ack: ackEnvelope },
  ];
  const docs: unknown[] = [];
  for (const type of ["notify", "ask", "task"]) {
    const block =
      type === "ask" ? { request: { mode: "confirm" } } : type === "task" ? { action: { instructions: "do" } } : {};
    const base: Doc = {
      ma2h_version: "0.5",
      type,
      created_at: T,
      agent: { id: "a", run_id: "r", runtime: "cli" },
      title: "t",
      idempotency_key: "k",
      id: "msg_1",
      ...block,
    };
    for (const to of [DEL, "agent:b"])
      for (const status of statuses)
        for (const mailbox of mailboxes)
          for (const delivery of deliveries)
            for (const embedded of ["none", "matching", "other"]) {
              const matching = status === "open" || !statuses.slice(2, 8).includes(status) ? "answered" : status;
              const resolution =
                embedded === "matching" ? matching : matching === "completed" ? "dismissed" : "completed";
              const response = {
                ma2h_version: "0.5",
                in_reply_to: "msg_1",
                resolution_id: "res_1",
                agent: { id: "a", run_id: "r" },
                resolution,
                response: { actor: "agent:b", resolved_at: T },
              };
              docs.push(
                variant(base, { to, status, mailbox, delivery, response: embedded === "none" ? DEL : response }),
              );
            }
    const edits: Edits[] = [
      { ma2h_version: "0.4", status: "open" },
      { id: "m1", status: "open" },
      { ma2h_version: "0.4", id: "m1", status: "open" },
      { ma2h_version: "0.4", status: "answered", delivery: { state: "expired" } },
      {
        status: "answered",
        response: {
          ma2h_version: "0.5",
          in_reply_to: "msg_1",
          resolution_id: "res_1",
          agent: { id: "a", run_id: "r" },
          resolution: "answered",
        },
      },
      { status: DEL },
    ];
    for (const e of edits) docs.push(variant(base, { status: type === "notify" ? "delivered" : "open", ...e }));
  }
  return docs;
}

const CAPABILITY_EDITS: Edits[] = [
  ...[
    "ack",
    "sessions",
    "inbound",
    "presence",
    "inter_agent",
    "presence.freshness_seconds",
    "inbound.session_param",
    "inbound.signature_algs",
    "inbound.stream_url",
    "inbound.stream_max_hold_seconds",
    "inter_agent.entry_kinds",
    "inter_agent.sender_allowlists",
    "ma2h_version",
  ].map((p) => ({ [p]: DEL })),
  ...[
    "ack.enabled",
    "sessions.enabled",
    "inbound.enabled",
    "presence.enabled",
    "inter_agent.enabled",
    "inbound.session_param",
    "inter_agent.sender_allowlists",
  ].map((p) => ({ [p]: false })),
  { "inter_agent.enabled": false, ack: DEL, inbound: DEL },
  { "inter_agent.enabled": false, ma2h_version: "0.4" },
  { "inter_agent.entry_kinds": ["message", "response"] },
  { "inter_agent.entry_kinds": ["message", "response", "receipt", "receipt"] },
  { "inter_agent.entry_kinds": ["message", "response", "bounce"] },
  { "inbound.signature_algs": [] },
  { "inbound.signature_algs": ["rsa"] },
  { ma2h_version: "0.4" },
  { ma2h_version: "0.05" },
  {
    sessions: DEL,
    inter_agent: DEL,
    "inbound.session_param": DEL,
    "inbound.stream_url": DEL,
    "inbound.stream_max_hold_seconds": DEL,
    ma2h_version: "0.4",
  },
  {
    sessions: DEL,
    inter_agent: DEL,
    inbound: DEL,
    ma2h_version: "0.4",
    "rate_limit.inter_agent_requests_per_minute": 10,
  },
  { sessions: DEL, inter_agent: DEL, inbound: DEL, ma2h_version: "0.4", rate_limit: { requests_per_minute: 10 } },
  { "inbound.stream_url": DEL, "inbound.stream_max_hold_seconds": 60 },
  { "inbound.stream_url": "not uri" },
  { max_body_bytes: 0 },
  { max_body_bytes: 1.5 },
  { max_body_bytes: 1e20 },
  { max_context_parts: 0 },
  { max_context_parts: -1 },
  { retention_days: "30" },
  { auth_schemes: ["bearer", "oauth"] },
  { callback_auth_schemes: ["hmac"] },
  { signature_algs: ["ed25519"] },
  { "sessions.terminal_retention_seconds": 0 },
  { "sessions.min_ttl_seconds": 0 },
  { "sessions.operator_hard_stop": "yes" },
  { "presence.freshness_seconds": 0 },
  { callback_max_attempts: 8, x: { y: 1 } },
];

export function capabilityDocs(bases: Doc[]): unknown[] {
  return expand(
    bases.filter((b) => b.ma2h_version === "0.5" && b.inter_agent !== undefined).slice(0, 1),
    CAPABILITY_EDITS,
  ).concat([{ ma2h_version: "0.3" }, { ma2h_version: "0.5" }, {}]);
}

export function resolveDocs(): unknown[] {
  const docs: unknown[] = [];
  const values: unknown[] = [DEL, "approve", { a: 1 }, [1], 5, null];
  const checklists: unknown[] = [DEL, [{ text: "a", done: true }], [{ text: "a" }], [], "x"];
  for (const resolution of ["answered", "declined", "completed", "dismissed", "cancelled", "expired", DEL]) {
    for (const value of values)
      for (const checklist of checklists) docs.push(variant({}, { resolution, value, checklist }));
  }
  docs.push(
    { resolution: "declined", comment: "no" },
    { resolution: "declined", comment: 1 },
    { resolution: "declined", extra: 1 },
    null,
    [],
  );
  return docs;
}

const T = "2026-08-10T11:20:00Z";
const DATE_TIMES = [
  "2026-02-30T00:00:00Z",
  "2026-06-04 15:22:08Z",
  "2026-06-04T15:22:08",
  "2026-06-04t15:22:08+05",
  "2026-12-31T23:59:60Z",
  "yesterday",
];

/**
 * Directive-typed documents for inbound-message.schema.json (only its `directive` branch is
 * mirrored): the edits keep each document out of the other three kinds — a `type` edit to a
 * message verb or `receipt` leaves it without `agent`/`in_reply_to` — so both must agree.
 */
const DIRECTIVE_EDITS: Edits[] = [
  ...["ma2h_version", "type", "id", "from", "to", "created_at", "title"].map((p) => ({ [p]: DEL })),
  ...["0.3", "0.4", "0.5", "0.6", "0.10", "0.04", "1.0", "0.", 4].map((v) => ({ ma2h_version: v })),
  ...["directive", "notify", "ask", "receipt", "ack", 1].map((v) => ({ type: v })),
  ...["", "dir_1", "dir_", "directive-123", 7].flatMap((id) =>
    ["0.4", "0.5", "0.6"].map((v) => ({ id, ma2h_version: v })),
  ),
  ...["human:alice", "system:hub", "agent:other/bot", "human:", "alice", 1].map((v) => ({ from: v })),
  ...[
    "agent:x",
    "agent:x#sess_1",
    "agent:x#bar",
    "agent:x#sess_",
    "agent:",
    "agent:a/b#sess_9",
    "human:alice",
    "agent:#sess_1",
  ].flatMap((to) => ["0.4", "0.5"].map((v) => ({ to, ma2h_version: v }))),
  ...DATE_TIMES.flatMap((v) => [{ created_at: v }, { expires_at: v }]),
  { expires_at: T },
  { title: "" },
  { title: long(200) },
  { title: long(201) },
  { title: long(200, "😀") },
  { title: long(201, "😀") },
  { title: 7 },
  { title: "two\nlines" },
  { body: "**md**" },
  { body: 1 },
  { priority: "urgent" },
  { priority: "asap" },
  { tags: [] },
  { tags: ["a"] },
  { tags: [1] },
  { tags: "a" },
  { context: [] },
  { context: [{ kind: "text", text: "x" }] },
  { context: [{ kind: "data", data: { a: 1 } }] },
  { context: [{ kind: "file", file: { uri: "https://x.example/a" } }] },
  { context: [{ kind: "file", file: { uri: "not a uri" } }] },
  { context: [{ kind: "bogus" }] },
  { context: "x" },
  { sensitive: true },
  { sensitive: "yes" },
  { request: { mode: "confirm" } },
  { action: { instructions: "do" } },
  { state: {} },
  { state: null },
  { request: null },
  { client_ref: "c" },
  { x_extra: { a: 1 } },
  { agent: { id: "a", run_id: "r", runtime: "cli" } },
];

export function directiveDocs(bases: Doc[]): unknown[] {
  return [
    ...expand(
      bases.filter((b) => b.type === "directive"),
      DIRECTIVE_EDITS,
    ),
    {},
    null,
    [],
    "directive",
  ];
}

const ACK_EDITS: Edits[] = [
  ...["ma2h_version", "type", "in_reply_to", "by", "acked_at", "note", "resolution_id"].map((p) => ({ [p]: DEL })),
  ...["0.3", "0.4", "0.5", "0.6", "0.12", "0.04", "1.0", 4].map((v) => ({ ma2h_version: v })),
  ...["ack", "receipt", 1].map((v) => ({ type: v })),
  { in_reply_to: "" },
  { in_reply_to: "dir_1" },
  { in_reply_to: 1 },
  ...["agent:a", "human:alice", "system:hub", "session:x", "agent:", "alice", 1].map((v) => ({ by: v })),
  ...DATE_TIMES.map((v) => ({ acked_at: v })),
  { note: "" },
  { note: "got it" },
  { note: 1 },
  { resolution_id: "" },
  { resolution_id: "r1" },
  { resolution_id: 1 },
  { x_extra: 1 },
];

export function ackDocs(bases: Doc[]): unknown[] {
  const hubAck: Doc = { ma2h_version: "0.6", type: "ack", in_reply_to: "msg_1", by: "agent:a", acked_at: T };
  return [...expand([hubAck, ...bases], ACK_EDITS), {}, null, []];
}

/** Every state × last_seen × freshness × agent_id, plus a few loose edits. */
export function presenceDocs(): unknown[] {
  const docs: unknown[] = [];
  for (const state of ["online", "offline", "unknown", "away", DEL]) {
    for (const last_seen of [DEL, T, "yesterday", 5]) {
      for (const freshness_seconds of [90, 1, 0, 1.5, 90.0, "90", -1, DEL]) {
        for (const agent_id of ["deploybot/dev-team", "", DEL])
          docs.push(variant({}, { agent_id, state, last_seen, freshness_seconds }));
      }
    }
  }
  docs.push(
    { agent_id: 5, state: "unknown", freshness_seconds: 90 },
    { agent_id: "a", state: "unknown", freshness_seconds: 90, x_extra: 1 },
    null,
    [],
  );
  return docs;
}
