/**
 * `ma2h-hub signing-key …`, `ma2h-hub deliveries …` (the signed return leg, §9.2, §8.3) and
 * `ma2h-hub message show` (a message's outcome and §14.2 response track, purged or not). Domain
 * modules load when a command runs.
 */
import { usageError, type Command } from "./command";

export const DELIVERY_COMMANDS: Record<string, Command> = {
  "signing-key rotate": {
    usage: "signing-key rotate [--account <slug>]",
    args: 0,
    async run(_args, flags) {
      const { rotateSigningKey } = await import("../lib/keys/signing-keys");
      if (flags.account === "") throw usageError("--account needs an account slug");
      // No --account: the Hub-wide key (§9.7 directives, §9.8 entries); with it: that account's push key.
      const k = await rotateSigningKey({ accountSlug: flags.account });
      const key = { kid: k.kid, account: k.account, created_at: k.createdAt.toISOString() };
      const what = k.account === null ? "Hub-wide signing key" : `push signing key of account ${k.account}`;
      const pin = k.account === null ? "" : "; receivers that pin a key id must add it (GET /v1/agents/me lists it)";
      return { json: { key }, text: `${what} ${key.kid} created; it signs from now on${pin}` };
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
