/**
 * The v0.6 agent→Hub message envelope (§4–§5), a zod mirror of
 * schema/v0.6/message.schema.json — discriminated on `type`, cross-type fields forbidden per branch,
 * with the schema's conditionals as refinements. Longer than the usual module because it is one
 * schema with its $defs (agent, part, request, action, callback); splitting it would scatter a single
 * wire contract. Unknown fields are allowed and preserved at every level (§10 robustness).
 * Semantic checks the schema cannot express (option-value uniqueness, options membership, flat input
 * schema, expiry) live in ask-contract.ts and rules.ts.
 */
import { z } from "zod";
import {
  ACTOR_PATTERN,
  ADDRESS_PATTERN,
  codePointString,
  dateTimeString,
  forbidden,
  isV05,
  jsonObject,
  parseWire,
  patternString,
  uriString,
  V05_PATTERN,
  versionString,
} from "./wire";
import { inputSchemaProblem } from "./input-schema";
import { jcs } from "./jcs";

/** §9.1 on a ≥ 0.5 envelope: agent-form resolver entries follow the §4 address grammar. */
const V05_RESOLVER_PATTERN = /^(human|system):.+$|^agent:[^#]+(#sess_.+)?$/u;
const SESSION_PATTERN = /^sess_.+$/u;

/** §4.1 origin descriptor. */
export const agentSchema = z.looseObject({
  id: z.string().min(1),
  run_id: z.string().min(1),
  runtime: z.enum(["github-actions", "cli", "cloud", "desktop", "openclaw", "other"]),
  session: patternString(SESSION_PATTERN).optional(), // §4.1, §16 (v0.5)
  project: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
});

/** §4.2 Part: exactly one of text / data / file, keyed on `kind`. */
export const partSchema = z.discriminatedUnion("kind", [
  z.looseObject({ kind: z.literal("text"), text: z.string(), metadata: jsonObject().optional() }),
  z.looseObject({ kind: z.literal("data"), data: jsonObject(), metadata: jsonObject().optional() }),
  z.looseObject({
    kind: z.literal("file"),
    file: z.looseObject({ uri: uriString(), name: z.string().optional(), mime_type: z.string().optional() }),
    metadata: jsonObject().optional(),
  }),
]);

export const responseOptionSchema = z.looseObject({
  value: z.string(),
  label: z.string(),
  description: z.string().optional(),
});

const callbackAuthSchema = z
  .looseObject({
    scheme: z.enum(["hmac", "bearer", "apikey"]),
    secret_ref: z.string().optional(),
    token_ref: z.string().optional(),
  })
  .superRefine((auth, ctx) => {
    // §9.2: hmac signs with a secret; bearer/apikey attach a token — never the other ref.
    const [needs, forbids] =
      auth.scheme === "hmac" ? (["secret_ref", "token_ref"] as const) : (["token_ref", "secret_ref"] as const);
    if (auth[needs] === undefined)
      ctx.addIssue({ code: "custom", path: [needs], message: `is required for scheme ${auth.scheme}` });
    if (auth[forbids] !== undefined)
      ctx.addIssue({ code: "custom", path: [forbids], message: `not allowed for scheme ${auth.scheme}` });
  });

/** §8.3 agent-supplied callback. */
export const callbackSchema = z
  .looseObject({
    mode: z.enum(["push", "pull"]),
    url: uriString().optional(),
    auth: callbackAuthSchema.optional(),
  })
  .superRefine((cb, ctx) => {
    if (cb.mode === "push" && cb.url === undefined)
      ctx.addIssue({ code: "custom", path: ["url"], message: "is required for mode push" });
  });

const allowedResolvers = () => z.array(patternString(ACTOR_PATTERN)).optional();

/** §5.2 ask request block. */
export const askRequestSchema = z
  .looseObject({
    mode: z.enum(["select", "input", "confirm"]),
    options: z.array(responseOptionSchema).optional(),
    schema: jsonObject().optional(), // §5.2 flat schema; flatness is flat-schema.ts (422, not 400)
    permissions: z
      .looseObject({
        // v0.6 removed `allow_accept` from the spec surface: like any unknown field it is kept, unread (§10).
        allow_edit: z.boolean().optional(), // §5.2 (v0.6): honoured only at minor ≥ 6 (ask-contract.ts)
        allow_respond: z.boolean().optional(),
        allow_ignore: z.boolean().optional(),
      })
      .optional(),
    default_on_expire: z
      .union([z.string(), jsonObject(), z.null()], { error: "must be a string, an object or null" })
      .optional(),
    allowed_resolvers: allowedResolvers(),
    callback: callbackSchema.optional(),
  })
  .superRefine((req, ctx) => {
    // v0.6 `uniqueItems`: wholly identical options (sv-070). Options sharing only a `value` pass the
    // schema (sv-071); the Hub refuses them before parsing (ask-contract.ts, dp-026).
    if (req.options !== undefined) {
      const seen = new Set<string>();
      req.options.forEach((o, i) => {
        const key = jcs(o);
        if (seen.has(key))
          ctx.addIssue({ code: "custom", path: ["options", i], message: "duplicates an earlier option (uniqueItems)" });
        seen.add(key);
      });
    }
    // §5.2 mode conditionals.
    if (req.mode === "select") {
      if (req.options === undefined)
        ctx.addIssue({ code: "custom", path: ["options"], message: "is required for mode select" });
      else if (req.options.length < 1)
        ctx.addIssue({ code: "custom", path: ["options"], message: "must have at least 1 option for mode select" });
    }
    if (req.mode === "input") {
      if (req.schema === undefined)
        ctx.addIssue({ code: "custom", path: ["schema"], message: "is required for mode input" });
      else {
        // v0.6: the input schema describes the answer object (§5.2); the Hub's own check answers 422 first.
        const problem = inputSchemaProblem(req.schema);
        if (problem !== null) ctx.addIssue({ code: "custom", path: ["schema", problem.at], message: problem.message });
      }
    }
    if (req.mode === "confirm" && req.options !== undefined && req.options.length !== 2) {
      ctx.addIssue({ code: "custom", path: ["options"], message: "must have exactly 2 options for mode confirm" });
    }
  });

/** §5.3 task action block. */
export const taskActionSchema = z.looseObject({
  instructions: z.string(),
  checklist: z.array(z.looseObject({ text: z.string(), done: z.boolean().optional() })).optional(),
  verification: z.string().optional(),
  allowed_resolvers: allowedResolvers(),
  callback: callbackSchema.optional(),
});

/** §4 common envelope fields (every verb). */
const common = {
  ma2h_version: versionString(),
  created_at: dateTimeString(),
  agent: agentSchema,
  to: patternString(ADDRESS_PATTERN).optional(), // §4 (v0.5)
  title: codePointString(1, 200),
  body: z.string().optional(),
  priority: z.enum(["low", "normal", "high", "urgent"]).optional(), // no default: stored as sent
  tags: z.array(z.string()).optional(),
  context: z.array(partSchema).optional(),
  state: jsonObject().optional(), // §9.3 opaque
  client_ref: z.string().optional(),
  idempotency_key: z.string().optional(),
  expires_at: dateTimeString().optional(),
  sensitive: z.boolean().optional(),
};

// §4 cross-type rule: notify carries neither block; ask only `request`; task only `action`.
const notifySchema = z.looseObject({
  ...common,
  type: z.literal("notify"),
  request: forbidden("on a notify (§4)"),
  action: forbidden("on a notify (§4)"),
});
const askSchema = z.looseObject({
  ...common,
  type: z.literal("ask"),
  idempotency_key: z.string(), // §8.1: REQUIRED for ask/task
  request: askRequestSchema,
  action: forbidden("on an ask (§4)"),
});
const taskSchema = z.looseObject({
  ...common,
  type: z.literal("task"),
  idempotency_key: z.string(),
  action: taskActionSchema,
  request: forbidden("on a task (§4)"),
});

type Envelope = z.infer<typeof notifySchema> | z.infer<typeof askSchema> | z.infer<typeof taskSchema>;

/** The schema's root `allOf`: the version-gated v0.5 rules. */
function versionRules(m: Envelope, ctx: z.core.$RefinementCtx): void {
  if (isV05(m.ma2h_version)) {
    // §9.1: on ≥ 0.5 an agent-form resolver entry must be a §4 address (no hash-bearing ids).
    const [block, resolvers] =
      m.type === "ask"
        ? ["request", m.request.allowed_resolvers]
        : m.type === "task"
          ? ["action", m.action.allowed_resolvers]
          : [null, undefined];
    resolvers?.forEach((entry, i) => {
      if (!V05_RESOLVER_PATTERN.test(entry)) {
        ctx.addIssue({
          code: "custom",
          path: [block as string, "allowed_resolvers", i],
          message: "agent entries must be agent:<id> or agent:<id>#sess_… on ≥ 0.5 (§9.1)",
        });
      }
    });
  }
  if (m.to !== undefined || m.agent.session !== undefined) {
    // §4, §10: `to` / `agent.session` are v0.5 features; a `#`-bearing sender cannot use them.
    const field = m.to !== undefined ? "to" : "agent.session";
    if (!V05_PATTERN.test(m.ma2h_version)) {
      ctx.addIssue({ code: "custom", path: ["ma2h_version"], message: `must be ≥ 0.5 when ${field} is present (§4)` });
    }
    if (m.agent.id.includes("#")) {
      ctx.addIssue({
        code: "custom",
        path: ["agent", "id"],
        message: `must not contain '#' when ${field} is present (§4)`,
      });
    }
  }
}

export const messageSchema = z
  .discriminatedUnion("type", [notifySchema, askSchema, taskSchema])
  .superRefine(versionRules);

export type Message = z.infer<typeof messageSchema>;
export type AskRequest = z.infer<typeof askRequestSchema>;
export type TaskAction = z.infer<typeof taskActionSchema>;
export type Callback = z.infer<typeof callbackSchema>;
export type ResponseOption = z.infer<typeof responseOptionSchema>;
export type Part = z.infer<typeof partSchema>;
export type Agent = z.infer<typeof agentSchema>;

/** Parses a submitted envelope; a schema failure is `400 validation_error` (§8.5). */
export function parseMessage(input: unknown): Message {
  return parseWire(messageSchema, input, "validation_error");
}

/** The `callback` of an ask (`request.callback`) or task (`action.callback`); a notify has none (§5). */
export function callbackOf(m: Message): Callback | undefined {
  return m.type === "ask" ? m.request.callback : m.type === "task" ? m.action.callback : undefined;
}
