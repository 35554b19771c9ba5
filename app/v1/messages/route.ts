import { agentCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { submitMessage } from "@/lib/messages/submit";
import { consumeSubmitBudget } from "@/lib/rate-limit";

export const dynamic = "force-dynamic";

/** §8.1 submit: notify / ask / task. */
export const POST = route(async ({ req, log, body }) => {
  const principal = await agentCaller(req);
  await consumeSubmitBudget(principal.agentRowId);
  const payload = await body();
  const result = await submitMessage(principal, payload);
  log.info("message accepted", { message_id: result.ack.id, replayed: result.replayed, status: result.ack.status });
  return json(result.ack, 202);
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
