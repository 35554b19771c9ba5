/**
 * The Hub's own `/v1` answers that no spec schema describes: the §8.5 error envelope, the results of
 * resolve, cancel, the drain and the mailbox ack, a directive read back with its track, the presence
 * read with its sessions, an agent's stop or resume, and the published keys. One definition each, used by the domain's return types and by the OpenAPI
 * document (lib/openapi), and checked against real responses (test/openapi.test.ts). Pure: no I/O.
 */
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "./errors";
import {
  inboundDirectiveSchema,
  inboundMessageEntrySchema,
  inboundReceiptSchema,
  inboundResponseEntrySchema,
} from "./inbound-message";
import { MAILBOX_STATES } from "./lifecycle";
import { presenceSchema } from "./presence";
import { SESSION_STATES } from "./session";
import { dateTimeString, integerMin } from "./wire";

export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The §8.5 envelope whose `code` is one of `codes` (default: every code of the table). */
export function errorEnvelopeSchema(codes: readonly ErrorCode[] = ERROR_CODES) {
  return z.looseObject({
    error: z.object({
      code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
    }),
    // §8.4, §8.8: a 409 already_terminal also names the message and its existing outcome.
    id: z.string().optional(),
    status: z.string().optional(),
    resolution: z.string().optional(),
  });
}

/** `POST /v1/messages/{id}/resolve` 200 (§8.8). */
export const resolveResultSchema = z.object({
  id: z.string().min(1),
  status: z.enum(["answered", "declined", "completed", "dismissed"]),
  resolution_id: z.string().min(1),
});
export type ResolveResult = z.infer<typeof resolveResultSchema>;

/** `POST /v1/messages/{id}/cancel` 200 (§8.4), also for a repeat cancel. */
export const cancelResultSchema = z.object({ id: z.string().min(1), status: z.literal("cancelled") });
export type CancelResult = z.infer<typeof cancelResultSchema>;

const entrySignature = z
  .string()
  .min(1)
  .meta({ description: "the MA2H-Signature value over this delivery, in its kind's context (§9.7, §9.8)" });

/**
 * `GET /v1/inbox` 200 (§8.7, §8.7.1): each entry with its detached `MA2H-Signature` value. A
 * session-less drain returns directives only; a `?session=` drain also the v0.5 kinds.
 */
export const drainResultSchema = z.object({
  messages: z.array(
    z.union([
      z.object({ directive: inboundDirectiveSchema, signature: entrySignature }),
      z.object({ message: inboundMessageEntrySchema, signature: entrySignature }),
      z.object({ response: inboundResponseEntrySchema, signature: entrySignature }),
      z.object({ receipt: inboundReceiptSchema, signature: entrySignature }),
    ]),
  ),
});

/** `POST /v1/inbox/ack` 200 (§8.7): how many of the ids were live in the caller's mailbox. */
export const mailboxAckResultSchema = z.object({ acked: integerMin(0) });

/** The §14.2 directive track, as its author's account reads it. */
export const directiveTrackSchema = z.object({
  state: z.enum(MAILBOX_STATES),
  delivered_at: dateTimeString().optional(),
  acknowledged_at: dateTimeString().optional(),
  note: z.string().optional(),
  prior: z.enum(["queued", "delivered"]).optional(),
});

/** `POST /v1/directives` 201 and `GET /v1/directives/{id}` 200: the directive, its status and track. */
export const directiveRecordSchema = z.intersection(
  inboundDirectiveSchema,
  z.looseObject({ status: z.enum(MAILBOX_STATES), delivery: directiveTrackSchema }),
);

/** One session of the agent in the presence read: its §15.1 `last_seen` and lease (§16.4). */
export const sessionPresenceSchema = z.object({
  id: z.string().min(1),
  state: z.enum(SESSION_STATES),
  last_seen: dateTimeString().optional(),
  expires_at: dateTimeString(),
});
export type SessionPresence = z.infer<typeof sessionPresenceSchema>;

/**
 * `GET /v1/agents/{agent_id}/presence` 200: the §15.3 body (schema/v0.6/presence.schema.json,
 * mirrored unchanged by ./presence.ts) plus the Hub's `sessions` — the agent's live and recently
 * ended sessions, newest first (none for an unknown agent).
 */
export const presenceReadSchema = z.intersection(
  presenceSchema,
  z.looseObject({ sessions: z.array(sessionPresenceSchema) }),
);
export type PresenceRead = z.infer<typeof presenceReadSchema>;

/** `POST /v1/agents/{agent_id}/stop` and `/resume` 200 (§16.4.1): whether the agent now stands stopped. */
export const agentStopResultSchema = z.object({ agent_id: z.string().min(1), stopped: z.boolean() });
export type AgentStopResult = z.infer<typeof agentStopResultSchema>;

/**
 * `GET /v1/agents/me` 200 (this Hub's): the calling agent, the key id(s) that sign its account's
 * §9.2 pushes — what a receiver pins — and whether its account's §8.0 inter-agent leg is on.
 */
export const agentSelfSchema = z.object({
  agent: z.object({ id: z.string().min(1) }),
  push_signing: z.object({
    key_id: z.string().min(1),
    key_ids: z.array(z.string().min(1)).min(1),
    keys_url: z.string().min(1),
  }),
  inter_agent: z.object({ enabled: z.boolean(), account_opted_in: z.boolean(), hub_allows: z.boolean() }),
});
export type AgentSelfBody = z.infer<typeof agentSelfSchema>;

/** `/.well-known/ma2h-keys` (§9.2, §9.7): the Hub's public Ed25519 keys as a JWKS. */
export const jwksSchema = z.object({
  keys: z.array(
    z.object({
      kty: z.literal("OKP"),
      crv: z.literal("Ed25519"),
      x: z.string().regex(/^[A-Za-z0-9_-]{43}$/u),
      kid: z.string().min(1),
      use: z.literal("sig"),
      alg: z.literal("EdDSA"),
    }),
  ),
});
