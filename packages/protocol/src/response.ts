/**
 * The §6 Response envelope (Hub → agent), a zod mirror of schema/v0.6/response.schema.json: open
 * (unknown fields allowed), with the schema's conditionals — no checklist on ask resolutions, the
 * `res_` namespace and stated checklist doneness on ≥ 0.5, and the expiry-default actor rule.
 */
import { z } from "zod";
import { ACTOR_PATTERN, dateTimeString, isV05, jsonObject, patternString, versionString } from "./wire";

const RESOLUTION_ID_V05 = /^res_.+$/u;
const ASK_ONLY = ["answered", "declined", "cancelled"];
export const DEFAULT_ON_EXPIRE_ACTOR = "system:default_on_expire";

export const responseDetailSchema = z.looseObject({
  value: z.union([z.string(), jsonObject()], { error: "must be a string or an object" }).optional(),
  edited: z.boolean().optional(),
  actor: patternString(ACTOR_PATTERN), // §9.1: Hub-attested, never request-supplied
  resolved_at: dateTimeString(),
  comment: z.string().optional(),
  checklist: z.array(z.looseObject({ text: z.string(), done: z.boolean().optional() })).optional(),
});

export const responseSchema = z
  .looseObject({
    ma2h_version: versionString(),
    in_reply_to: z.string().min(1),
    resolution_id: z.string().min(1),
    agent: z.looseObject({ id: z.string().min(1), run_id: z.string().min(1) }),
    resolution: z.enum(["answered", "declined", "cancelled", "expired", "completed", "dismissed"]),
    defaulted: z.boolean().optional(),
    response: responseDetailSchema.optional(),
    state: jsonObject().optional(), // §9.3: round-tripped verbatim
  })
  .superRefine((r, ctx) => {
    const checklist = r.response?.checklist;
    // §6, §8.8: checklists are task-only.
    if (ASK_ONLY.includes(r.resolution) && checklist !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["response", "checklist"],
        message: `not allowed on resolution ${r.resolution}`,
      });
    }
    if (isV05(r.ma2h_version)) {
      // §8.7.1: v0.5-minted resolution ids are in the res_ namespace; items state their doneness.
      if (!RESOLUTION_ID_V05.test(r.resolution_id)) {
        ctx.addIssue({ code: "custom", path: ["resolution_id"], message: "must match ^res_ on ≥ 0.5 (§8.7.1)" });
      }
      checklist?.forEach((item, i) => {
        if (item.done === undefined)
          ctx.addIssue({ code: "custom", path: ["response", "checklist", i, "done"], message: "is required on ≥ 0.5" });
      });
    }
    // §6: an expiry-defaulted Response is `expired` with the system actor, never a human.
    if (r.defaulted === true) {
      if (r.resolution !== "expired")
        ctx.addIssue({ code: "custom", path: ["resolution"], message: "must be expired when defaulted is true (§6)" });
      if (r.response !== undefined && r.response.actor !== DEFAULT_ON_EXPIRE_ACTOR) {
        ctx.addIssue({
          code: "custom",
          path: ["response", "actor"],
          message: `must be ${DEFAULT_ON_EXPIRE_ACTOR} when defaulted is true (§6)`,
        });
      }
    }
  });

/** Named `HubResponse` so it never shadows the DOM `Response`. */
export type HubResponse = z.infer<typeof responseSchema>;
export type ResponseDetail = z.infer<typeof responseDetailSchema>;
