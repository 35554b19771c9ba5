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
import { rememberTrace, submitSpan } from "../../telemetry/spans";
import { annotate } from "../../telemetry/tracing";

/**
 * §8.1 submit: notify / ask / task. A field ignored as unknown (§10) that was meant for a block of
 * the message is named in an `MA2H-Warning` header (packages/protocol/src/submit-warnings.ts).
 */
export const submitRoute = route(({ req, log, body }) =>
  // Continued from the agent's `traceparent` when tracing is on (lib/telemetry); a no-op when off.
  submitSpan(req, async (span) => {
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
    // Kept before a standing rule may answer it, so the rule's resolve joins the agent's trace too.
    if (!result.replayed) await rememberTrace(result.ack.id, span);
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
    annotate(span, {
      "ma2h.message.id": result.ack.id,
      ...(payload.type === "notify" || payload.type === "ask" || payload.type === "task"
        ? { "ma2h.message.type": payload.type }
        : {}),
      "ma2h.replayed": result.replayed,
      "http.response.status_code": 202,
    });
    return json(result.ack, 202, warningHeaders(warnings));
  }),
);
