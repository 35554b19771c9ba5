/** `ma2h-hub signing-key …` and `ma2h-hub deliveries …` (the signed return leg, §9.2, §8.3). */
import { listDeliveries, redriveDelivery } from "../lib/delivery/admin";
import { rotateSigningKey } from "../lib/keys/signing-keys";
import { usageError, type Command } from "./command";

export const DELIVERY_COMMANDS: Record<string, Command> = {
  "signing-key rotate": {
    usage: "signing-key rotate",
    args: 0,
    async run() {
      const k = await rotateSigningKey();
      const key = { kid: k.kid, created_at: k.createdAt.toISOString() };
      return { json: { key }, text: `signing key ${key.kid} created; it signs from now on` };
    },
  },
  "deliveries list": {
    usage: "deliveries list --message <msg_id>",
    args: 0,
    async run(_args, flags) {
      const messageId = flags.message;
      if (!messageId) throw usageError("--message is required");
      const deliveries = await listDeliveries(messageId);
      const text =
        deliveries.map((d) => `${d.id}  ${d.status}  ${d.attempts.length} attempt(s)  ${d.callback_url}`).join("\n") ||
        "no deliveries";
      return { json: { deliveries }, text };
    },
  },
  "deliveries redrive": {
    usage: "deliveries redrive <delivery-id>",
    args: 1,
    async run([id]) {
      const d = await redriveDelivery(id!);
      return { json: { delivery: d }, text: `delivery ${d.id} is pending again` };
    },
  },
};
