/**
 * The handler of `POST /v1/messages` (the route table, packages/protocol/src/routes.ts), served by its
 * App Router route file and by the protocol lane (server/protocol-lane.ts) alike.
 */
import { agentCaller } from "../callers";
import { json, route } from "../handler";
import { submitMessage } from "../../messages/submit";
import { answerByStandingRule } from "../../standing-rules/apply";
import { interAgentSettings } from "../../env";
import { consumeSubmitBudget } from "../../rate-limit";
import { submitWarnings, warningHeaders } from "@ma2h/protocol/submit-warnings";

/**
 * §8.1 submit: notify / ask / task. A field ignored as unknown (§10) that was meant for a block of
 * the message is named in an `MA2H-Warning` header (packages/protocol/src/submit-warnings.ts).
 */
export const submitRoute = route(async ({ req, log, body }) => {
  const principal = await agentCaller(req);
  const payload = await body();
  // §8.6: addressed submits (`to`) count against the separate inter-agent budget only, so agent
  // chatter cannot spend the budget of the agent's human-facing asks.
  if (typeof payload === "object" && payload !== null && "to" in payload) {
    await consumeSubmitBudget(
      `inter-agent:${principal.agentRowId}`,
      interAgentSettings().requestsPerMinute,
      "addressed submits",
    );
  } else {
    await consumeSubmitBudget(principal.agentRowId);
  }
  const result = await submitMessage(principal, payload);
  // A standing rule may answer a new confirm or select ask at once (docs/policies.md "Standing
  // rules"); the ack still says `open` — the agent reads the rule's Response as it would a person's.
  if (!result.replayed && result.ack.status === "open") await answerByStandingRule(principal, result.ack.id);
  const warnings = submitWarnings(payload);
  log.info("message accepted", {
    message_id: result.ack.id,
    replayed: result.replayed,
    status: result.ack.status,
    ...(warnings.length > 0 ? { warnings } : {}),
  });
  return json(result.ack, 202, warningHeaders(warnings));
});
