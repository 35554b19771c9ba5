/** The §14.1 ack envelope, a zod mirror of schema/v0.6/ack.schema.json (open: unknown fields kept). */
import { z } from "zod";
import { ACTOR_PATTERN, dateTimeString, patternString, V04_PATTERN } from "./wire";

/**
 * The longest ack `note` the Hub accepts, in code points, on both legs (§14.1 "a short note";
 * docs/decisions/delivery-and-push.md): the response-leg ack and the mailbox ack.
 */
export const ACK_NOTE_MAX_CHARS = 2000;

export const ackSchema = z.looseObject({
  ma2h_version: patternString(V04_PATTERN), // §14: the ack primitive is v0.4+, so the minor must be ≥ 4
  type: z.literal("ack"),
  in_reply_to: z.string().min(1),
  by: patternString(ACTOR_PATTERN), // Hub-attested (§14.4)
  acked_at: dateTimeString(),
  note: z.string().optional(),
  resolution_id: z.string().optional(),
});

export type Ack = z.infer<typeof ackSchema>;

/** `POST /v1/messages/{id}/ack` body (§14.3) `{note?, resolution_id?}`; unknown members (a body-supplied `by`, …) are ignored (§10). */
export const ackRequestSchema = z.looseObject({
  note: z
    .string()
    .refine((s) => [...s].length <= ACK_NOTE_MAX_CHARS, { error: `must be at most ${ACK_NOTE_MAX_CHARS} characters` })
    .refine((s) => !s.includes("\u0000"), { error: "must not contain NUL" })
    .meta({ maxLength: ACK_NOTE_MAX_CHARS })
    .optional(),
  resolution_id: z.string().min(1).optional(),
});

export type AckRequest = z.infer<typeof ackRequestSchema>;
