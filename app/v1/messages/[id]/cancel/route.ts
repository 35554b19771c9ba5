import { agentCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { cancelMessage } from "@/lib/messages/cancel";

export const dynamic = "force-dynamic";

/** §8.4 cancel. No body is defined: empty or `{}`, with or without a Content-Type. */
export const POST = route(async ({ req, params, optionalBody }) => {
  const principal = await agentCaller(req);
  await optionalBody();
  return json(await cancelMessage(principal, params.id ?? ""));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
