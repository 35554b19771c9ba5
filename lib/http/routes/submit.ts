/**
 * The handler of `POST /v1/messages`, served by its App Router route file and by the
 * protocol lane (server/protocol-lane.ts, #20) alike: one definition for both.
 */
import { agentCaller } from "../callers";
import { json, route } from "../handler";
import { submitMessage } from "../../messages/submit";
import { consumeSubmitBudget } from "../../rate-limit";

/** §8.1 submit: notify / ask / task. */
export const submitRoute = route(async ({ req, log, body }) => {
  const principal = await agentCaller(req);
  await consumeSubmitBudget(principal.agentRowId);
  const payload = await body();
  const result = await submitMessage(principal, payload);
  log.info("message accepted", { message_id: result.ack.id, replayed: result.replayed, status: result.ack.status });
  return json(result.ack, 202);
});
