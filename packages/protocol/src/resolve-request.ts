/**
 * The §8.8 resolve body, a zod mirror of schema/v0.6/resolve-request.schema.json (open: unknown
 * fields allowed). Value-vs-request checks need the message and live in rules.ts.
 */
import { z } from "zod";
import { HubError } from "./errors";
import { jsonObject, parseWire } from "./wire";

export const resolveRequestSchema = z
  .looseObject({
    resolution: z.enum(["answered", "declined", "completed", "dismissed"]),
    value: z.union([z.string(), jsonObject()], { error: "must be a string or an object" }).optional(),
    comment: z.string().optional(),
    checklist: z.array(z.looseObject({ text: z.string(), done: z.boolean() })).optional(),
  })
  .superRefine((body, ctx) => {
    // §8.8: `value` iff answered; `checklist` never on an ask resolution.
    if (body.resolution === "answered" && body.value === undefined) {
      ctx.addIssue({ code: "custom", path: ["value"], message: "is required when resolution is answered (§8.8)" });
    }
    if (body.resolution !== "answered" && body.value !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["value"],
        message: `not allowed when resolution is ${body.resolution} (§8.8)`,
      });
    }
    if ((body.resolution === "answered" || body.resolution === "declined") && body.checklist !== undefined) {
      ctx.addIssue({ code: "custom", path: ["checklist"], message: "not allowed on an ask resolution (§8.8)" });
    }
  });

export type ResolveRequest = z.infer<typeof resolveRequestSchema>;

/**
 * Parses a resolve body. A JSON object that fails the schema is `422 invalid_field` (§8.8: the Hub
 * validates resolution and value, `422 invalid_field` otherwise; vectors sv-042/055/057). A body
 * that is not an object at all is malformed: `400 validation_error`.
 */
export function parseResolveRequest(input: unknown): ResolveRequest {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new HubError("validation_error", "(body): must be a JSON object");
  }
  return parseWire(resolveRequestSchema, input, "invalid_field");
}
