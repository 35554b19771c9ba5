/**
 * The §8.2 GET body, a zod mirror of schema/v0.6/get-message.schema.json: the message envelope
 * plus `id`, `status`, the embedded Response once terminal, and the §14.2 `delivery` (response
 * track) and `mailbox` (outbound track) objects, with the schema's status-per-type conditionals.
 */
import { z } from "zod";
import { ackSchema } from "./ack";
import { DELIVERY_STATES, MAILBOX_STATES, STATUSES_BY_TYPE, TERMINAL_STATUSES } from "./lifecycle";
import { messageSchema } from "./message";
import { responseSchema } from "./response";
import { dateTimeString, isV05 } from "./wire";

const MESSAGE_ID_V05 = /^msg_.+$/u;

/** §14.2 response track: did the submitter get the answer. */
export const deliveryTrackSchema = z
  .looseObject({
    state: z.enum(DELIVERY_STATES),
    delivered_at: dateTimeString().optional(),
    acknowledged_at: dateTimeString().optional(),
    ack: ackSchema.optional(),
  })
  .superRefine((d, ctx) => {
    const acked = d.state === "acknowledged";
    for (const key of ["ack", "acknowledged_at"] as const) {
      if (acked && d[key] === undefined)
        ctx.addIssue({ code: "custom", path: [key], message: "is required when state is acknowledged" });
      if (!acked && d[key] !== undefined)
        ctx.addIssue({ code: "custom", path: [key], message: `not allowed when state is ${d.state}` });
    }
    // §14.2 delivery honesty: `expired` means never delivered.
    if (d.state === "expired" && d.delivered_at !== undefined) {
      ctx.addIssue({ code: "custom", path: ["delivered_at"], message: "not allowed when state is expired (§14.2)" });
    }
  });

/** §14.2 outbound mailbox track of an addressed message: did the addressee see it. */
export const mailboxTrackSchema = z
  .looseObject({
    state: z.enum(MAILBOX_STATES),
    delivered_at: dateTimeString().optional(),
    acknowledged_at: dateTimeString().optional(),
    prior: z.enum(["queued", "delivered"]).optional(),
  })
  .superRefine((m, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if ((m.state === "queued" || m.state === "expired") && m.delivered_at !== undefined)
      issue("delivered_at", `not allowed when state is ${m.state} (§14.2)`);
    if (m.state === "acknowledged" && m.acknowledged_at === undefined)
      issue("acknowledged_at", "is required when state is acknowledged");
    if (m.state !== "acknowledged" && m.acknowledged_at !== undefined)
      issue("acknowledged_at", `not allowed when state is ${m.state}`);
    if (m.prior !== undefined && m.state !== "bounced") issue("prior", "only allowed when state is bounced (§14.2)");
    if (m.prior === "queued" && m.delivered_at !== undefined)
      issue("delivered_at", "not allowed when prior is queued (never seen, §14.2)");
  });

const getExtras = z.looseObject({
  id: z.string().min(1),
  status: z.enum([
    "open",
    "delivered",
    "answered",
    "declined",
    "cancelled",
    "expired",
    "completed",
    "dismissed",
    "queued",
    "bounced",
    "acknowledged",
  ]),
  response: responseSchema.optional(),
  delivery: deliveryTrackSchema.optional(),
  mailbox: mailboxTrackSchema.optional(),
});

export const getMessageSchema = z.intersection(messageSchema, getExtras).superRefine((g, ctx) => {
  const issue = (path: string[], message: string) => ctx.addIssue({ code: "custom", path, message });
  const terminal = (TERMINAL_STATUSES as readonly string[]).includes(g.status);
  const addressed = g.to !== undefined;
  // Status per verb (§5.1, §7, §14.2).
  const allowed: readonly string[] =
    g.type === "notify"
      ? addressed
        ? STATUSES_BY_TYPE.addressedNotify
        : STATUSES_BY_TYPE.notify
      : STATUSES_BY_TYPE[g.type];
  if (!allowed.includes(g.status))
    issue(["status"], `must be one of ${allowed.join(", ")} for ${addressed ? "an addressed " : "a "}${g.type}`);
  // §14.2: the mailbox track exists exactly for addressed messages.
  if (!addressed && g.mailbox !== undefined) issue(["mailbox"], "only allowed on an addressed message (§14.2)");
  if (addressed && g.mailbox === undefined) issue(["mailbox"], "is required on an addressed message (§8.2)");
  // §8.7.1: v0.5-minted ids are msg_; the response-track `expired` is a v0.5 state.
  if (isV05(g.ma2h_version) && !MESSAGE_ID_V05.test(g.id)) issue(["id"], "must match ^msg_ on ≥ 0.5 (§8.7.1)");
  if (g.delivery?.state === "expired" && !isV05(g.ma2h_version))
    issue(["delivery", "state"], "expired needs ma2h_version ≥ 0.5 (§14.2)");
  if (g.type === "notify") {
    // §5.1: nothing routes back for a notify; its status mirrors the mailbox track.
    if (g.delivery !== undefined) issue(["delivery"], "not allowed on a notify (§5.1)");
    if (g.response !== undefined) issue(["response"], "not allowed on a notify (§5.1)");
    if (g.mailbox !== undefined && g.status !== g.mailbox.state)
      issue(["status"], `must equal mailbox.state (${g.mailbox.state}) for a notify (§5.1)`);
  } else {
    const undeliverable = g.mailbox?.state === "bounced" || g.mailbox?.state === "expired";
    if ((undeliverable || g.delivery !== undefined) && !terminal) {
      issue(
        ["status"],
        undeliverable
          ? "must be terminal once the mailbox track is undeliverable (§7)"
          : "must be terminal when a delivery track is present (§14.2)",
      );
    }
    if (terminal) {
      // §8.2: every terminal ask/task embeds the full Response, matching its status.
      if (g.response === undefined) issue(["response"], `is required when status is ${g.status} (§8.2)`);
      else {
        if (g.type === "ask" && g.response.response === undefined)
          issue(["response", "response"], "is required on a terminal ask (§6)");
        if (g.response.resolution !== g.status) issue(["response", "resolution"], `must equal status (${g.status})`);
      }
    }
  }
  if (g.status === "open" && g.response !== undefined) issue(["response"], "not allowed while status is open (§8.2)");
});

export type GetMessage = z.infer<typeof getMessageSchema>;
