/**
 * The handler of `POST /v1/messages` (the route table, packages/protocol/src/routes.ts), served by its
 * App Router route file and by the protocol lane (server/protocol-lane.ts) alike.
 */
import { agentCaller } from "../callers";
import { json, route } from "../handler";
import { acceptSubmit } from "../../intake/submit";
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
    // Kept before a standing rule may answer it, so the rule's resolve joins the agent's trace too.
    const result = await acceptSubmit(principal, payload, (r) =>
      r.replayed ? Promise.resolve() : rememberTrace(r.ack.id, span),
    );
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
