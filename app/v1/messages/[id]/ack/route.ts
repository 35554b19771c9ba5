import { agentCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { ackResponse } from "@/lib/messages/ack";

export const dynamic = "force-dynamic";

/** §14.3 response-leg ack. Every member is optional: an empty body (any Content-Type) is `{}`. */
export const POST = route(async ({ req, params, optionalBody }) => {
  const principal = await agentCaller(req);
  const body = await optionalBody();
  return json(await ackResponse(principal, params.id ?? "", body));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
