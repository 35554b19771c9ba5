/**
 * The handler of `POST /v1/messages/{id}/resolve`, served by its App Router route file and by the
 * protocol lane (server/protocol-lane.ts, #20) alike: one definition for both.
 */
import { resolverCaller } from "../callers";
import { json, route } from "../handler";
import { resolveMessage } from "../../messages/resolve";
import { HubError } from "../../protocol/errors";

/** §8.8 resolve, for agents and operators through the same domain verb. */
export const resolveRoute = route(async ({ req, url, params, body }) => {
  const resolver = await resolverCaller(req);
  // §8.8 `?session=`: this Hub registers no sessions, so every presented session is unknown (404).
  if (url.searchParams.has("session")) throw new HubError("not_found", "no such session");
  const payload = await body();
  return json(await resolveMessage(resolver, params.id ?? "", payload, { channel: "api" }));
});
