import { resolverCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { resolveMessage } from "@/lib/messages/resolve";
import { HubError } from "@/lib/protocol/errors";

export const dynamic = "force-dynamic";

/** §8.8 resolve, for agents and operators through the same domain verb. */
export const POST = route(async ({ req, url, params, body }) => {
  const resolver = await resolverCaller(req);
  // §8.8 `?session=`: this Hub registers no sessions, so every presented session is unknown (404).
  if (url.searchParams.has("session")) throw new HubError("not_found", "no such session");
  const payload = await body();
  return json(await resolveMessage(resolver, params.id ?? "", payload, { channel: "api" }));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
