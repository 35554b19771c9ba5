/** The handlers of `POST /v1/messages/{id}/cancel` and `/ack` (the route table, packages/protocol/src/routes.ts). */
import { agentCaller } from "../callers";
import { json, route } from "../handler";
import { ackResponse } from "../../messages/ack";
import { cancelMessage } from "../../messages/cancel";

/** §8.4 cancel. No body is defined: empty or `{}`, with or without a Content-Type. */
export const cancelRoute = route(async ({ req, params, optionalBody }) => {
  const principal = await agentCaller(req);
  await optionalBody();
  return json(await cancelMessage(principal, params.id ?? ""));
});

/** §14.3 response-leg ack. Every member is optional: an empty body (any Content-Type) is `{}`. */
export const ackResponseRoute = route(async ({ req, params, optionalBody }) => {
  const principal = await agentCaller(req);
  const body = await optionalBody();
  return json(await ackResponse(principal, params.id ?? "", body));
});
