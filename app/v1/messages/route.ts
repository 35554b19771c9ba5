import { limits } from "@/lib/env";
import { readJsonObject } from "@/lib/http/body";
import { agentCaller } from "@/lib/http/callers";
import { json, route } from "@/lib/http/handler";
import { submitMessage } from "@/lib/messages/submit";
import { consumeSubmitBudget } from "@/lib/rate-limit";

export const dynamic = "force-dynamic";

/** §8.1 submit: notify / ask / task. */
export const POST = route(async ({ req, log }) => {
  const principal = await agentCaller(req);
  await consumeSubmitBudget(principal.agentRowId, limits().requestsPerMinute);
  const body = await readJsonObject(req, { maxBytes: limits().maxBodyBytes, requireJson: true, allowEmpty: false });
  const result = await submitMessage(principal, body);
  log.info("message accepted", { message_id: result.ack.id, replayed: result.replayed, status: result.ack.status });
  return json(result.ack, 202);
});
