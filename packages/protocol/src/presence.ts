/**
 * The §15.3 presence read body, a zod mirror of schema/v0.6/presence.schema.json: `last_seen` is
 * present exactly when the agent was ever seen (online/offline) and absent for `unknown` (§15.2).
 * Pure: no I/O.
 */
import { z } from "zod";
import { dateTimeString, integerMin } from "./wire";

export const presenceSchema = z
  .looseObject({
    agent_id: z.string().min(1),
    state: z.enum(["online", "offline", "unknown"]),
    last_seen: dateTimeString().optional(),
    freshness_seconds: integerMin(1),
  })
  .superRefine((p, ctx) => {
    if (p.state === "unknown" && p.last_seen !== undefined)
      ctx.addIssue({ code: "custom", path: ["last_seen"], message: "not allowed when state is unknown (§15.2)" });
    if (p.state !== "unknown" && p.last_seen === undefined)
      ctx.addIssue({ code: "custom", path: ["last_seen"], message: `is required when state is ${p.state} (§15.2)` });
  });

export type PresenceBody = z.infer<typeof presenceSchema>;
