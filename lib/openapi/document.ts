/**
 * The OpenAPI 3.1 description of the Hub's protocol routes (`GET /v1/openapi.json`), generated from
 * the zod schemas the routes parse with and the domain answers with (@ma2h/protocol), so the document
 * cannot drift from them. Pure: no I/O and no Next — the route passes in its public URL. Which
 * credential each operation takes mirrors lib/http/callers.ts; the error codes per status come from
 * the one §8.5 table (packages/protocol/src/errors.ts). docs/api.md says how to use it.
 */
import type { z } from "zod";
import { ackRequestSchema, ackSchema } from "@ma2h/protocol/ack";
import {
  agentSelfSchema,
  agentStopResultSchema,
  cancelResultSchema,
  directiveRecordSchema,
  drainResultSchema,
  errorEnvelopeSchema,
  jwksSchema,
  mailboxAckResultSchema,
  presenceReadSchema,
  resolveResultSchema,
} from "@ma2h/protocol/api-bodies";
import { capabilitySchema } from "@ma2h/protocol/capability";
import { directiveRequestSchema, mailboxAckSchema } from "@ma2h/protocol/directive";
import { ALSO_STATUS, ERROR_STATUS, type ErrorCode } from "@ma2h/protocol/errors";
import { getMessageSchema } from "@ma2h/protocol/get-message";
import { messageSchema } from "@ma2h/protocol/message";
import { resolveRequestSchema } from "@ma2h/protocol/resolve-request";
import { responseSchema } from "@ma2h/protocol/response";
import { sessionEnvelopeSchema, sessionListSchema, sessionRegisterSchema } from "@ma2h/protocol/session";
import { submitAckSchema } from "@ma2h/protocol/submit-ack";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { pendingApprovalSchema } from "../approvals/pending";
import { type JsonSchema, jsonSchemaOf } from "./json-schema";
import { type Credential, type OperationId, V1_ROUTES } from "@ma2h/protocol/routes";

type Obj = Record<string, unknown>;

/** Request bodies: what a client sends, read as zod's input. */
const REQUEST_SCHEMAS: Record<string, z.ZodType> = {
  Message: messageSchema,
  ResolveRequest: resolveRequestSchema,
  AckRequest: ackRequestSchema,
  DirectiveRequest: directiveRequestSchema,
  MailboxAckRequest: mailboxAckSchema,
  SessionRegisterRequest: sessionRegisterSchema,
};

/** Response bodies (and the pushed Response): what the Hub sends, read as zod's output. */
const RESPONSE_SCHEMAS: Record<string, z.ZodType> = {
  SubmitAck: submitAckSchema,
  GetMessage: getMessageSchema,
  ResolveResult: resolveResultSchema,
  PendingApproval: pendingApprovalSchema,
  CancelResult: cancelResultSchema,
  Ack: ackSchema,
  DrainResult: drainResultSchema,
  MailboxAckResult: mailboxAckResultSchema,
  Directive: directiveRecordSchema,
  Presence: presenceReadSchema,
  SessionEnvelope: sessionEnvelopeSchema,
  SessionList: sessionListSchema,
  AgentStopResult: agentStopResultSchema,
  AgentSelf: agentSelfSchema,
  Capability: capabilitySchema,
  Jwks: jwksSchema,
  Response: responseSchema,
  Error: errorEnvelopeSchema(),
};

/** The HTTP statuses of the §8.5 table, each with its codes. */
function codesByStatus(): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][])
    out.set(status, [...(out.get(status) ?? []), code]);
  for (const [code, statuses] of Object.entries(ALSO_STATUS) as [ErrorCode, readonly number[]][])
    for (const status of statuses) out.set(status, [...(out.get(status) ?? []), code]);
  return out;
}

const ref = (kind: "schemas" | "responses" | "parameters" | "headers", name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});
const jsonContent = (schema: Obj) => ({ "application/json": { schema } });
const REQUEST_ID = { "X-Request-Id": ref("headers", "RequestId") };

function ok(description: string, schemaName: string, headers: Obj = {}): Obj {
  return { description, headers: { ...REQUEST_ID, ...headers }, content: jsonContent(ref("schemas", schemaName)) };
}

/** Error responses by status, each naming exactly the §8.5 codes of that status. */
function errors(...statuses: number[]): Obj {
  return Object.fromEntries([
    ...statuses.map((s) => [String(s), ref("responses", `Error${s}`)]),
    ["default", ref("responses", "Error")],
  ]);
}

// Security requirements (OR of the listed schemes). Both credentials go in either header (§9.1).
const AGENT = [{ agentKey: [] }, { agentKeyHeader: [] }];
const HUMAN = [{ personalAccessToken: [] }, { personalAccessTokenHeader: [] }];
const NONE: Obj[] = [];

const SESSION_COOKIE_NOTE =
  "The Hub's own inbox pages may also call it with their browser session cookie (same-origin only); that is not an API credential and is not described here.";

function requestBody(schemaName: string, required = true, description?: string): Obj {
  return { required, ...(description ? { description } : {}), content: jsonContent(ref("schemas", schemaName)) };
}

/** §8.3 push of the Response to the ask's or task's callback URL. */
function responseCallbacks(): Obj {
  const push = {
    post: {
      summary: "The Hub pushes the Response (§8.3)",
      description:
        "Sent once the ask or task is resolved, to a `callback` with `mode: push`, retried with backoff until a 2xx (see `callback_max_attempts` / `callback_max_duration_seconds` in the capability document). Verify `MA2H-Signature` before trusting the body (§9.2): HMAC-SHA256 with the callback secret under `auth.scheme: hmac`, otherwise Ed25519 with a key from `/.well-known/ma2h-keys`. Under `auth.scheme: bearer` / `apikey` the bound credential also arrives as `Authorization: Bearer` / `X-API-Key`.",
      parameters: [
        {
          name: "MA2H-Signature",
          in: "header",
          required: true,
          description: "`t=<unix seconds>,jti=<nonce>,v1=<base64url signature>` over the signed context (§9.2).",
          schema: { type: "string" },
        },
      ],
      requestBody: requestBody("Response"),
      responses: { "2XX": { description: "Received; any 2xx ends the retries." } },
    },
  };
  return {
    response: {
      "{$request.body#/request/callback/url}": push,
      "{$request.body#/action/callback/url}": push,
    },
  };
}

/** Each `/v1` operation of the route table (packages/protocol/src/routes.ts), less what the table says: its path, method and credential. */
function operations(): Record<OperationId, Obj> {
  const id = ref("parameters", "MessageId");
  return {
    submitMessage: {
      summary: "Submit a notify, ask or task (§8.1)",
      description:
        "Ask and task need an `idempotency_key`; a repeat with the identical payload answers the same ack. Rate-limited per agent (`429` with `Retry-After`). An `agent.session` must name one of the agent's own live sessions (§4.1, §16): the submit renews its lease; a session that is not the agent's is `422 invalid_field`, its own ended one `410 destination_gone`, or `410 session_closed_by_operator` after an operator's close (§16.3). With `to` (`agent:<id>` or `agent:<id>#sess_…`, §4) the message goes to another agent of the account, once the account has opted in to the inter-agent leg (`422 invalid_field` before): a notify is acked `queued`, an ask or task `open`, and every such ack carries the `destination` snapshot. An unknown, other-account or allowlist-blocked destination is `422 unknown_destination`; an ended destination session `410 destination_gone` (`422 unknown_destination` to a sender without session visibility). Addressed submits count against `rate_limit.inter_agent_requests_per_minute` only. An ask or task for the human inbox that the account's approval policy leaves nobody to answer is `422 invalid_field`, naming the rules, and nothing is stored (docs/policies.md).",
      requestBody: requestBody("Message"),
      responses: {
        "202": ok("Accepted", "SubmitAck", { "MA2H-Warning": ref("headers", "Ma2hWarning") }),
        ...errors(400, 401, 403, 409, 410, 422, 429),
      },
      callbacks: responseCallbacks(),
    },
    getMessage: {
      summary: "Pull a message and its status (§8.2)",
      description:
        "With `wait`, holds the request until the message turns terminal or the wait runs out; with `since`, answers `304` when the status has not changed since then. A request that would park past the agent's `rate_limit.max_parked_per_agent` (long-polls and drains together) is `429` at once; past the web process's ceiling, `503`; both with `Retry-After`.",
      parameters: [id, ref("parameters", "Wait"), ref("parameters", "Since")],
      responses: {
        "200": ok("The message", "GetMessage"),
        "304": { description: "Unchanged since `since`", headers: REQUEST_ID },
        ...errors(400, 401, 403, 404, 410, 429, 503),
      },
    },
    resolveMessage: {
      summary: "Resolve an ask or task (§8.8)",
      description: `For an allowed agent resolver or an operator of the message's account. With \`session\` (an agent's own live session, §8.8) the resolution is attested as \`agent:<id>#<sess>\` and session-qualified \`allowed_resolvers\` match it; resolving does not renew the lease. A person holds no sessions: with a person's credential any \`session\` is \`404\`. An ask or task the account's approval policy routed (docs/policies.md) is answered by the people it asked only: an agent's key, or anyone else's token, is \`403 not_authorized\`. Under a quorum rule each person's answer is an approval: \`202\` until one answer has the approvals it needs; a sponsor the rule excludes, or a person whose approval could change nothing (\`not in group <name>\`), is \`403\` naming the rule. ${SESSION_COOKIE_NOTE}`,
      parameters: [id, ref("parameters", "Session")],
      requestBody: requestBody("ResolveRequest"),
      responses: {
        "200": ok("Resolved", "ResolveResult"),
        "202": ok(
          "A person's approval, recorded, of an ask that needs more (a quorum rule of the account's approval policy, docs/policies.md): the ask stays `open` — for its agent too — until the approval that completes it, which answers `200`. The same approval again answers the same.",
          "PendingApproval",
        ),
        ...errors(400, 401, 403, 404, 409, 410, 422),
      },
    },
    cancelMessage: {
      summary: "Cancel an open ask (§8.4)",
      description: "No body is defined: send none or `{}`. A repeat cancel answers the same.",
      parameters: [id],
      responses: { "200": ok("Cancelled", "CancelResult"), ...errors(400, 401, 403, 404, 409, 410, 422) },
    },
    ackResponse: {
      summary: "Acknowledge the Response of an ask or task (§14.3)",
      description: "The first ack wins; a repeat answers the stored ack. The body may be empty.",
      parameters: [id],
      requestBody: requestBody("AckRequest", false),
      responses: { "200": ok("The stored ack", "Ack"), ...errors(400, 401, 403, 404, 409, 410, 422) },
    },
    drainInbox: {
      summary: "Drain the caller's mailbox (§8.7)",
      description:
        "Oldest first; each entry is hidden for the visibility window and signed afresh (§9.7, §9.8) — verify `signature` against `/.well-known/ma2h-keys` before acting on it. With `session` (§8.7.1) the drain also returns the entries addressed to that session (`agent:<id>#<sess>`), the principal's addressed `message` entries (first claim wins), and the `response` and `receipt` entries of that session, and renews its lease (§16.2); without it, exactly the session-less shape (directives only). A drain that would park past the agent's `rate_limit.max_parked_per_agent` is `429` at once; past the web process's ceiling, `503`; both with `Retry-After`.",
      parameters: [ref("parameters", "Wait"), ref("parameters", "Max"), ref("parameters", "Session")],
      responses: { "200": ok("Up to `max` entries", "DrainResult"), ...errors(400, 401, 404, 410, 429, 503) },
    },
    streamInbox: {
      summary: "Stream the session's mailbox as server-sent events (§8.7.2)",
      description:
        "The entries a `session` drain would return, pushed as they arrive: `event: entry`, `id:` the ack key, `data:` the drain's item (`{directive|message|response|receipt, signature}`) signed afresh for this push (§9.7, §9.8); `: keep-alive` comments at most every 15 s. Connecting (and reconnecting) renews the session's lease; staying connected does not. The server closes each hold at `inbound.stream_max_hold_seconds` or before the lease's `expires_at`, whichever is sooner: reconnect at once (`retry:` says how soon). A push only starts the entry's visibility window — it stays `queued` until acked (`POST /v1/inbox/ack`) or drained; un-acked, it is delivered again after the window. A stream of a session that ends (closed, expired, stopped) is closed within a second. Each open stream holds one of the agent's `rate_limit.max_parked_per_agent` slots (`429` over it).",
      parameters: [{ ...ref("parameters", "Session") }],
      responses: {
        "200": {
          description: "The event stream, until the hold's bound",
          headers: { ...REQUEST_ID },
          content: { "text/event-stream": { schema: { type: "string" } } },
        },
        ...errors(400, 401, 404, 410, 429),
      },
    },
    ackInbox: {
      summary: "Acknowledge drained entries of any kind (§8.7, §8.7.1, §14.3)",
      description:
        "Consuming is acknowledging. `ids` are ack keys of any kind (§8.7.1): a directive's or `message` entry's `id` (the sender's `mailbox` track reads `acknowledged`), a `response` entry's `resolution_id` (also the message's response-leg ack, first ack wins), a `receipt`'s `id` (consumed only). A presented `session` must be the caller's own live session and the ack renews its lease (§16.2); a session-less ack renews none. Which ids may be acked stays the credential's, session or not.",
      parameters: [ref("parameters", "Session")],
      requestBody: requestBody("MailboxAckRequest"),
      responses: {
        "200": ok("How many were acknowledged now", "MailboxAckResult"),
        ...errors(400, 401, 404, 410),
      },
    },
    authorDirective: {
      summary: "Send a directive to an agent's mailbox (§13)",
      description: `For operators (owner or member); an agent credential is \`403\`. \`to\` may name one session of the agent (\`agent:<id>#sess_…\`, §13.2): a session the agent does not hold is \`422 unknown_destination\`, an ended one \`410 destination_gone\`; un-acked, it bounces when the session ends (§14.2). ${SESSION_COOKIE_NOTE}`,
      requestBody: requestBody("DirectiveRequest"),
      responses: { "201": ok("Queued", "Directive"), ...errors(400, 401, 403, 410, 422, 429) },
    },
    getDirective: {
      summary: "Read a directive and its delivery track (§14.2)",
      description: `For the humans of its account; an agent credential is \`403\`. ${SESSION_COOKIE_NOTE}`,
      parameters: [ref("parameters", "DirectiveId")],
      responses: { "200": ok("The directive", "Directive"), ...errors(401, 403, 404) },
    },
    getAgentSelf: {
      summary: "The calling agent: its push signing key id and its account's inter-agent state",
      description:
        "With the agent's own key (a personal access token is `401`). `push_signing.key_id` is the kid, in `/.well-known/ma2h-keys`, of the key that signs this agent's account's pushes now; `key_ids` lists every kid of the account still published, newest first (the previous one stays for the overlap after `ma2h-hub signing-key rotate --account`). The keys document lists every account's keys under opaque kids, so a receiver pins this one and refuses any other (`keyId` / `--key-id` / `MA2H_KEY_ID` in `@ma2h/agent`). Directives (§9.7) and mailbox entries (§9.8) are signed by the Hub-wide key, not this one. `inter_agent.enabled` is whether this agent may send `to`-addressed messages now: the account owner's opt-in (`account_opted_in`) and the deployment's ceiling (`hub_allows`) both on.",
      responses: { "200": ok("The agent", "AgentSelf"), ...errors(401) },
    },
    getPresence: {
      summary: "An agent's presence (§15.3)",
      description: `For the humans of the agent's account, one account at a time: \`account\` names it (agent ids are unique per account only). An agent unknown in that account answers the \`unknown\` body; an account where the caller holds no seat is \`404\`. An agent credential is \`403\`. Beyond the §15.3 body (\`schema/v0.6/presence.schema.json\`), the Hub adds \`sessions\`: the agent's live and recently ended sessions (§16), each with its state, its own \`last_seen\` and its lease's \`expires_at\` — empty for an agent that holds none or does not exist. ${SESSION_COOKIE_NOTE}`,
      parameters: [ref("parameters", "AgentId"), ref("parameters", "Account")],
      responses: { "200": ok("Presence, with the agent's sessions", "Presence"), ...errors(400, 401, 403, 404) },
    },
    stopAgent: {
      summary: "Stop an agent: the durable operator stop (§16.4.1)",
      description: `For an owner or admin of the agent's account (a member or viewer is \`403\`); an agent credential is \`403\` whatever it names. Closes every live session of the agent as the operator (each then carries \`closed_by_operator: true\`, and its holder's touchpoints answer \`410 session_closed_by_operator\`) and records a stop on the agent that outlives the sessions: until a person resumes it, registering a session is \`403 session_closed_by_operator\`. The agent's key still authenticates everything else. Idempotent; audited. No body. ${SESSION_COOKIE_NOTE}`,
      parameters: [ref("parameters", "AgentId"), ref("parameters", "Account")],
      responses: { "200": ok("The agent is stopped", "AgentStopResult"), ...errors(400, 401, 403, 404) },
    },
    resumeAgent: {
      summary: "Lift an agent's operator stop (§16.4.1)",
      description: `For an owner or admin of the agent's account only — nothing on any agent surface lifts a stop (an agent credential is \`403\`). The agent may register sessions again; its closed sessions stay closed. Idempotent; audited. No body. ${SESSION_COOKIE_NOTE}`,
      parameters: [ref("parameters", "AgentId"), ref("parameters", "Account")],
      responses: { "200": ok("The agent is no longer stopped", "AgentStopResult"), ...errors(400, 401, 403, 404) },
    },
    registerSession: {
      summary: "Register a session (§16.1)",
      description:
        "With the agent's own key (a personal access token is `401`). Every field is optional; `ttl_seconds` is clamped to the advertised `sessions.min_ttl_seconds`…`max_ttl_seconds` (absent: the Hub's default lease, 300 s unless its operator set another). The lease is renewed only by the agent's own activity naming the session — a `?session=` drain or inbox ack, or a submit with `agent.session` (§16.2) — and lapses otherwise. More than `sessions.max_live_per_agent` live sessions is `429` with `Retry-After`; an agent an operator stopped is `403 session_closed_by_operator` (stop; do not re-register); an agent id containing `#` is `422`.",
      requestBody: requestBody("SessionRegisterRequest", false, "May be empty or absent."),
      responses: { "201": ok("Registered", "SessionEnvelope"), ...errors(400, 401, 403, 422, 429) },
    },
    listSessions: {
      summary: "List sessions (§16.4)",
      description: `An agent credential lists its own sessions, live and recently ended — and its account's other agents' too where the account grants it beneath the advertised \`sessions.agent_list_visibility\` ceiling; \`scope\` says which applied (\`own\` or \`account\`). \`account\` and \`agent_id\` are ignored for an agent. A person (any seat) lists every session of one account, optionally of one agent (\`agent_id\`; an agent the account does not have lists none). Ended sessions stay listed for \`sessions.terminal_retention_seconds\`. ${SESSION_COOKIE_NOTE}`,
      parameters: [
        ref("parameters", "Account"),
        {
          name: "agent_id",
          in: "query",
          required: false,
          description: "A person's list: only this agent's sessions.",
          schema: { type: "string", minLength: 1 },
        },
      ],
      responses: { "200": ok("The sessions, newest first", "SessionList"), ...errors(400, 401, 404) },
    },
    getSession: {
      summary: "Read a session (§16.4)",
      description: `Under the same visibility as the list: the agent's own (or, under the account's grant, a sibling's); any session of an account where a person holds a seat. Anything else — another principal's, another account's, unknown, or ended longer than \`sessions.terminal_retention_seconds\` ago — is \`404\`, indistinguishably. ${SESSION_COOKIE_NOTE}`,
      parameters: [ref("parameters", "SessionId")],
      responses: { "200": ok("The session", "SessionEnvelope"), ...errors(401, 404) },
    },
    closeSession: {
      summary: "Close a session (§16.3), or the operator kill-switch (§16.4)",
      description: `The owning agent closes its own session (\`closed\`); a session already ended comes back unchanged. An owner or admin of the account may close any of its sessions — the kill-switch: when the close wins, the session carries \`closed_by_operator: true\`, the agent's other live sessions close with it, and the agent is stopped as by \`POST /v1/agents/{agent_id}/stop\` (registering is \`403\` until a person resumes it). A member or viewer is \`403\`; another agent's session is \`404\`. Un-acked mail addressed to a closed session bounces (§14.2). Idempotent. ${SESSION_COOKIE_NOTE}`,
      parameters: [ref("parameters", "SessionId")],
      responses: { "200": ok("The session, now ended", "SessionEnvelope"), ...errors(401, 403, 404) },
    },
    getOpenApi: {
      summary: "This document",
      responses: {
        "200": {
          description: "The OpenAPI 3.1 document",
          headers: REQUEST_ID,
          content: jsonContent({ type: "object" }),
        },
      },
    },
  };
}

/** The credential kinds of the route table as security requirements. */
const SECURITY: Record<Credential, Obj[]> = {
  agent: AGENT,
  person: HUMAN,
  "agent or person": [...AGENT, ...HUMAN],
  none: NONE,
};

/** The paths: every route of the table, in its order, then the well-known documents. */
function paths(): Obj {
  const ops = operations();
  const out: Record<string, Obj> = {};
  for (const r of V1_ROUTES) {
    const { summary, description, ...rest } = ops[r.operationId];
    const operation = { operationId: r.operationId, summary, ...(description === undefined ? {} : { description }) };
    out[r.path] = {
      ...out[r.path],
      [r.method.toLowerCase()]: { ...operation, security: SECURITY[r.credential], ...rest },
    };
  }
  return { ...out, ...wellKnownPaths() };
}

function wellKnownPaths(): Obj {
  return {
    "/.well-known/ma2h": {
      get: {
        operationId: "getCapability",
        summary: "Capability document (§8.0)",
        description: "Also served at `/.well-known/ma2h-capability`.",
        security: NONE,
        responses: { "200": ok("The capability document", "Capability"), default: ref("responses", "Error") },
      },
    },
    "/.well-known/ma2h-keys": {
      get: {
        operationId: "getSigningKeys",
        summary: "The Hub's public signing keys (§9.2, §9.7)",
        security: NONE,
        responses: { "200": ok("A JWKS of Ed25519 keys", "Jwks"), default: ref("responses", "Error") },
      },
    },
    "/.well-known/ma2h-audit-keys": {
      get: {
        operationId: "getAuditKeys",
        summary: "The public keys that sign the audit chain's checkpoints",
        description:
          "Save it to verify an audit export without the database (`ma2h-hub audit verify --file … --keys …`). Only keys the Hub generated itself; retired ones stay listed.",
        security: NONE,
        responses: { "200": ok("A JWKS of Ed25519 keys", "Jwks"), default: ref("responses", "Error") },
      },
    },
  };
}

function components(): Obj {
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(REQUEST_SCHEMAS)) schemas[name] = jsonSchemaOf(schema, "input");
  for (const [name, schema] of Object.entries(RESPONSE_SCHEMAS)) schemas[name] = jsonSchemaOf(schema, "output");

  const responses: Obj = {
    Error: {
      description: "A §8.5 error",
      headers: REQUEST_ID,
      content: jsonContent(ref("schemas", "Error")),
    },
  };
  for (const [status, codes] of codesByStatus()) {
    const name = `Error${status}`;
    schemas[name] = jsonSchemaOf(errorEnvelopeSchema(codes), "output");
    responses[name] = {
      description: `§8.5 error: ${codes.join(", ")}`,
      headers:
        status === 429 || status === 503 ? { ...REQUEST_ID, "Retry-After": ref("headers", "RetryAfter") } : REQUEST_ID,
      content: jsonContent(ref("schemas", name)),
    };
  }

  const credential = (what: string) =>
    `${what}. Sent as \`Authorization: Bearer <token>\` or, equivalently, \`X-API-Key: <token>\` (when both are present, Authorization is used).`;
  return {
    schemas,
    responses,
    parameters: {
      MessageId: { name: "id", in: "path", required: true, schema: { type: "string", minLength: 1 } },
      DirectiveId: { name: "id", in: "path", required: true, schema: { type: "string", minLength: 1 } },
      SessionId: {
        name: "id",
        in: "path",
        required: true,
        description: "The session id (`sess_…`).",
        schema: { type: "string", minLength: 1 },
      },
      AgentId: {
        name: "agent_id",
        in: "path",
        required: true,
        description: "The agent id; its `/` may be sent as `%2F` or literally.",
        schema: { type: "string", minLength: 1 },
      },
      Account: {
        name: "account",
        in: "query",
        required: false,
        description:
          "The agent's account (slug). Optional only for a person with a seat in one account; with seats in several, omitting it is `400 validation_error`; an account where the caller holds no seat is `404`.",
        schema: { type: "string", minLength: 1 },
      },
      Wait: {
        name: "wait",
        in: "query",
        description:
          "Long-poll seconds; longer than the Hub's maximum (`max_wait_seconds` in the capability document) is clamped, not refused.",
        schema: { type: "number", minimum: 0 },
      },
      Since: {
        name: "since",
        in: "query",
        description: "RFC 3339 time: answer `304` unless the status changed after it.",
        schema: { type: "string", format: "date-time" },
      },
      Max: {
        name: "max",
        in: "query",
        description: "Most directives to return; above `inbound.max_batch` is clamped.",
        schema: { type: "integer", minimum: 1 },
      },
      Session: {
        name: "session",
        in: "query",
        description:
          "§8.7.1 / §16.3: one of the caller's own live sessions (`sess_…`). Another principal's or an unknown one is `404 not_found`; the caller's own but ended (expired or self-closed) is `410 gone` — register a new one and continue; closed by an operator, `410 session_closed_by_operator` — stop, do not re-register. Empty is `400`.",
        schema: { type: "string", minLength: 1 },
      },
    },
    headers: {
      RequestId: { description: "This request's id, as logged by the Hub.", schema: { type: "string" } },
      Ma2hWarning: {
        description:
          "Present only when the accepted body had a field that was ignored as unknown (§10) but looks meant for a block of the message: `ignored-field=<name>; use=<where it belongs>`, several comma-separated. Today: a top-level `allowed_resolvers` (it belongs in `request` or `action`).",
        required: false,
        schema: { type: "string" },
      },
      RetryAfter: {
        description: "Whole seconds until a retry may succeed (§8.6).",
        schema: { type: "integer", minimum: 1 },
      },
    },
    securitySchemes: {
      agentKey: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "ma2h_key_…",
        description: credential("An agent's API key (`ma2h_key_…`)"),
      },
      agentKeyHeader: {
        type: "apiKey",
        in: "header",
        name: "X-API-Key",
        description: "An agent's API key in `X-API-Key`.",
      },
      personalAccessToken: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "ma2h_pat_…",
        description: credential("An operator's personal access token (`ma2h_pat_…`, made under Settings)"),
      },
      personalAccessTokenHeader: {
        type: "apiKey",
        in: "header",
        name: "X-API-Key",
        description: "An operator's personal access token in `X-API-Key`.",
      },
    },
  };
}

export interface OpenApiOptions {
  /** The Hub's public base URL, for `servers`. */
  serverUrl?: string;
}

/** The document. Deterministic for given options, so it can be built once and cached. */
export function openApiDocument(options: OpenApiOptions = {}): Obj {
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "MA2H Hub",
      version: HUB_VERSION,
      summary: "The MA2H protocol routes of this Hub: agents ask people, people answer and instruct.",
      description:
        "`info.version` is the MA2H protocol version this Hub speaks (`ma2h_version`); the `/v1` in the paths is the route version. Schemas are generated from the Hub's own validators; cross-field rules they enforce (per-type statuses, mode conditionals, `^msg_` ids on ≥ 0.5, …) are not all expressible here — the spec's JSON Schemas and §-references hold them. Every error is the §8.5 envelope `{error: {code, message}}`.",
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths: paths(),
    components: components(),
  };
}
