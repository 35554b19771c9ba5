/**
 * `ma2h-hub signing-key …`, `ma2h-hub deliveries …` (the signed return leg, §9.2, §8.3) and
 * `ma2h-hub message show` (a message's outcome and §14.2 response track, purged or not). Domain
 * modules load when a command runs (#20).
 */
import { usageError, type Command } from "./command";

export const DELIVERY_COMMANDS: Record<string, Command> = {
  "signing-key rotate": {
    usage: "signing-key rotate",
    args: 0,
    async run() {
      const { rotateSigningKey } = await import("../lib/keys/signing-keys");
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
      const { listDeliveries } = await import("../lib/delivery/admin");
      const deliveries = await listDeliveries(messageId);
      const text =
        deliveries.map((d) => `${d.id}  ${d.status}  ${d.attempts.length} attempt(s)  ${d.callback_url}`).join("\n") ||
        "no deliveries";
      return { json: { deliveries }, text };
    },
  },
  "message show": {
    usage: "message show <msg_id>",
    args: 1,
    async run([id]) {
      const { messageForOperator } = await import("../lib/messages/operator-view");
      const m = await messageForOperator(id!);
      const outcome = m.status ? `${m.status}${m.actor ? ` by ${m.actor}` : ""}` : "outcome not kept";
      const delivery = `response track ${m.delivery_state ?? "-"}`;
      const purged = m.purged ? `; purged ${m.purged_at}` : "";
      return {
        json: { message: m },
        text: `${m.id}  ${m.type ?? "?"}  ${m.account ?? "?"}/${m.agent ?? "?"}  ${outcome}  ${delivery}${purged}`,
      };
    },
  },
  "deliveries redrive": {
    usage: "deliveries redrive <delivery-id>",
    args: 1,
    async run([id]) {
      const { redriveDelivery } = await import("../lib/delivery/admin");
      const d = await redriveDelivery(id!);
      return { json: { delivery: d }, text: `delivery ${d.id} is pending again` };
    },
  },
};
