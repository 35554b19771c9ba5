/**
 * §16 sessions, a zod mirror of schema/v0.6/session.schema.json: the session resource (the root),
 * the `POST /v1/sessions` request, the single-session envelope and the `GET /v1/sessions` list with
 * its optional applied `scope`. Pure: no I/O.
 */
import { z } from "zod";
import { dateTimeString, integerMin, patternString } from "./wire";

const labels = () => z.record(z.string(), z.string());

export const SESSION_STATES = ["active", "closed", "expired"] as const;
export type SessionState = (typeof SESSION_STATES)[number];

export const sessionSchema = z
  .looseObject({
    id: patternString(/^sess_.+$/u),
    // §16.1: an agent id containing `#` can never hold a session (the address separator, §4).
    agent_id: patternString(/^[^#]+$/u),
    state: z.enum(SESSION_STATES),
    created_at: dateTimeString(),
    expires_at: dateTimeString(),
    last_seen: dateTimeString().optional(),
    ttl_seconds: integerMin(1).optional(),
    closed_at: dateTimeString().optional(),
    // §16.4 true-only emission: `false` must never validate.
    closed_by_operator: z.literal(true).optional(),
    run_id: z.string().min(1).optional(),
    label: z.string().optional(),
    kind: z.string().optional(),
    project: z.string().optional(),
    labels: labels().optional(),
  })
  .superRefine((s, ctx) => {
    // §16.3: the marker rides the winning operator close, so it only ever sits on `closed`.
    if (s.closed_by_operator !== undefined && s.state !== "closed")
      ctx.addIssue({ code: "custom", path: ["state"], message: "must be closed when closed_by_operator is present" });
  });

export const sessionRegisterSchema = z.looseObject({
  run_id: z.string().min(1).optional(),
  label: z.string().optional(),
  kind: z.string().optional(),
  project: z.string().optional(),
  labels: labels().optional(),
  ttl_seconds: integerMin(1).optional(),
});

export const sessionEnvelopeSchema = z.looseObject({ session: sessionSchema });

export const SESSION_SCOPES = ["account", "own"] as const;
export type SessionScope = (typeof SESSION_SCOPES)[number];

export const sessionListSchema = z.looseObject({
  sessions: z.array(sessionSchema),
  scope: z.enum(SESSION_SCOPES).optional(),
});

export type SessionResource = z.infer<typeof sessionSchema>;
export type SessionRegisterRequest = z.infer<typeof sessionRegisterSchema>;
