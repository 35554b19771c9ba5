/**
 * The §8.1 `202` submit ack, a zod mirror of schema/v0.6/submit-ack.schema.json. The official
 * schema is closed (additionalProperties: false), and so is this one, including `destination`.
 */
import { z } from "zod";
import { dateTimeString, uriString } from "./wire";

const MESSAGE_ID_V05 = /^msg_.+$/u;
/** Statuses that only an ADDRESSED message's ack can carry, so `destination` is schema-required. */
const ADDRESSED_ONLY_STATUSES = ["queued", "bounced", "acknowledged"];

/** §8.1 reachability snapshot; exactly `{state: "unknown"}` without visibility. */
export const destinationSchema = z
  .strictObject({
    state: z.enum(["online", "offline", "unknown"]),
    last_seen: dateTimeString().optional(),
  })
  .superRefine((d, ctx) => {
    if (d.state === "unknown" && d.last_seen !== undefined) {
      ctx.addIssue({ code: "custom", path: ["last_seen"], message: "not allowed when state is unknown (§8.1)" });
    }
    if (d.state !== "unknown" && d.last_seen === undefined) {
      ctx.addIssue({ code: "custom", path: ["last_seen"], message: `is required when state is ${d.state} (§8.1)` });
    }
  });

export const submitAckSchema = z
  .strictObject({
    id: z.string().min(1),
    status: z.enum([
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
    ]),
    poll_url: uriString(),
    review_url: uriString().optional(),
    destination: destinationSchema.optional(),
  })
  .superRefine((ack, ctx) => {
    // §8.7.1: a destination-carrying (addressed, v0.5-minted) ack names a msg_ id.
    if (ack.destination !== undefined && !MESSAGE_ID_V05.test(ack.id)) {
      ctx.addIssue({ code: "custom", path: ["id"], message: "must match ^msg_ on an addressed ack (§8.7.1)" });
    }
    // §8.1: the destination snapshot is the misroute detector for every addressed ack.
    if (ADDRESSED_ONLY_STATUSES.includes(ack.status) && ack.destination === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["destination"],
        message: `is required when status is ${ack.status} (§8.1)`,
      });
    }
  });

export type SubmitAck = z.infer<typeof submitAckSchema>;
export type Destination = z.infer<typeof destinationSchema>;
