/**
 * The delivered mailbox entry (§8.7, §13.1, §8.7.1), a zod mirror of
 * schema/v0.6/inbound-message.schema.json: a `oneOf` of four kinds — the human→agent `directive`
 * (v0.4) and the v0.5 inter-agent entries `message`, `response` and `receipt`, which only
 * session-presenting drains receive. The kinds are disjoint (`message` entries are notify/ask/task,
 * a receipt is `receipt`, a Response entry has the §6 fields and no `type`), so a union of the four
 * is the `oneOf`. The Hub delivers directives only so far; the other three are mirrored for the
 * inter-agent leg and its vectors. Pure: no I/O.
 */
import { z } from "zod";
import { directiveOptionalFields } from "./directive";
import { messageSchema } from "./message";
import { responseSchema } from "./response";
import {
  ADDRESS_PATTERN,
  codePointString,
  dateTimeString,
  forbidden,
  isV05,
  patternString,
  V04_PATTERN,
  V05_PATTERN,
} from "./wire";

/** §8.7.1: the `dir_` ack-key namespace is normative for ≥ 0.5-minted directives. */
const DIRECTIVE_ID_V05 = /^dir_.+$/u;

export const inboundDirectiveSchema = z
  .looseObject({
    ma2h_version: patternString(V04_PATTERN), // §13.1: directives are v0.4+, the minor must be ≥ 4
    type: z.literal("directive"),
    id: z.string().min(1),
    from: patternString(/^(human|system):.+$/u), // Hub-attested author, never an agent (§9.1)
    to: patternString(/^agent:.+$/u),
    created_at: dateTimeString(),
    title: codePointString(1, 200),
    ...directiveOptionalFields,
    // §13.1: no inbound ask/task, and no agent-owned resume blob.
    request: forbidden("on a directive (§13.1)"),
    action: forbidden("on a directive (§13.1)"),
    state: forbidden("on a directive (§13.1)"),
  })
  .superRefine((d, ctx) => {
    // ≥ 0.5 directives follow the §4 first-`#` grammar and the `dir_` namespace; a 0.4-era
    // directive queued before an upgrade keeps its legacy `to` and id and stays drainable.
    if (!isV05(d.ma2h_version)) return;
    if (!ADDRESS_PATTERN.test(d.to))
      ctx.addIssue({
        code: "custom",
        path: ["to"],
        message: `must match ${ADDRESS_PATTERN.source} on ≥ 0.5 (§4, §13.2)`,
      });
    if (!DIRECTIVE_ID_V05.test(d.id))
      ctx.addIssue({ code: "custom", path: ["id"], message: "must match ^dir_ on ≥ 0.5 (§8.7.1)" });
  });

export type InboundDirective = z.infer<typeof inboundDirectiveSchema>;

/** `agent:<id>` or `agent:<id>#sess_…` (§4): the attested sender of a message entry. */
const AGENT_ADDRESS = /^agent:[^#]+(#sess_.+)?$/u;
const SESSION_ADDRESS = /^agent:[^#]+#sess_.+$/u;

/**
 * §8.7.1 a delivered `message` entry: the addressed §4 envelope with the Hub's `id` (`msg_`) and
 * attested `from`; the submitter's `state`, `client_ref` and callbacks are stripped before delivery,
 * so an entry carrying them is refused (they would be unsigned injections, §9.8). A submit that
 * carried `agent.session` yields a session-qualified `from`.
 */
export const inboundMessageEntrySchema = messageSchema.superRefine((m, ctx) => {
  const e = m as Record<string, unknown> & {
    agent?: { session?: unknown };
    request?: Record<string, unknown>;
    action?: Record<string, unknown>;
  };
  const issue = (path: string[], message: string) => ctx.addIssue({ code: "custom", path, message });
  if (typeof e.ma2h_version !== "string" || !V05_PATTERN.test(e.ma2h_version))
    issue(["ma2h_version"], "must be ≥ 0.5 on a message entry (§8.7.1)");
  if (typeof e.id !== "string" || !/^msg_.+$/u.test(e.id)) issue(["id"], "must match ^msg_ (§8.7.1)");
  if (typeof e.from !== "string" || !AGENT_ADDRESS.test(e.from)) issue(["from"], `must match ${AGENT_ADDRESS.source}`);
  if (e.to === undefined) issue(["to"], "is required on a message entry (§8.7.1)");
  if (e.state !== undefined) issue(["state"], "is stripped before delivery (§8.7.1)");
  if (e.client_ref !== undefined) issue(["client_ref"], "is stripped before delivery (§8.7.1)");
  if (e.request?.callback !== undefined) issue(["request", "callback"], "is stripped before delivery (§8.7.1)");
  if (e.action?.callback !== undefined) issue(["action", "callback"], "is stripped before delivery (§8.7.1)");
  if (e.agent?.session !== undefined && (typeof e.from !== "string" || !SESSION_ADDRESS.test(e.from)))
    issue(["from"], "must be session-qualified when agent.session is present (§8.7.1)");
});

/** §6 / §8.7.1 a Response delivered to the submitting session: the v0.4 body, minor ≥ 5. */
export const inboundResponseEntrySchema = responseSchema.superRefine((r, ctx) => {
  const version = (r as { ma2h_version?: unknown }).ma2h_version;
  if (typeof version !== "string" || !V05_PATTERN.test(version))
    ctx.addIssue({ code: "custom", path: ["ma2h_version"], message: "must be ≥ 0.5 on a response entry (§8.7.1)" });
});

/** §14.2 / §8.7.1 a bounce receipt to a live sender session. */
export const inboundReceiptSchema = z.looseObject({
  ma2h_version: patternString(V05_PATTERN),
  type: z.literal("receipt"),
  id: patternString(/^rcpt_.+$/u),
  in_reply_to: z.string().min(1),
  event: z.enum(["bounced"]),
  prior: z.enum(["queued", "delivered"]),
  at: dateTimeString(),
  session: patternString(/^sess_.+$/u),
  to: patternString(SESSION_ADDRESS),
  request: forbidden("on a receipt"),
  action: forbidden("on a receipt"),
  state: forbidden("on a receipt"),
});

/** A delivered bounce receipt (§8.7.1, §14.2): all six digest members present (§9.8). */
export interface DeliveredReceipt {
  ma2h_version: string;
  type: "receipt";
  /** `rcpt_…`, its ack key. */
  id: string;
  in_reply_to: string;
  event: "bounced";
  prior: "queued" | "delivered";
  at: string;
  /** The destination session that went terminal (a principal-addressed orphan's last claimant). */
  session: string;
  /** The sender session it is delivered to. */
  to: string;
}

/** Any delivered entry: exactly one of the four kinds (the schema's `oneOf`; the kinds are disjoint). */
export const inboundEntrySchema = z.union([
  inboundDirectiveSchema,
  inboundMessageEntrySchema,
  inboundResponseEntrySchema,
  inboundReceiptSchema,
]);
