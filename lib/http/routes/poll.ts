/**
 * The handler of `GET /v1/messages/{id}` (the route table, packages/protocol/src/routes.ts), served by its
 * App Router route file and by the protocol lane (server/protocol-lane.ts) alike.
 */
import { agentCaller } from "../callers";
import { json, route } from "../handler";
import { parsePollQuery } from "../poll-query";
import { readMessage } from "../../messages/read";

/** §8.2 pull, with `?wait=` long-poll and `?since=` (304 when unchanged). */
export const pollRoute = route(async ({ req, url, params }) => {
  const principal = await agentCaller(req);
  const query = parsePollQuery(url.searchParams);
  const result = await readMessage(principal, params.id ?? "", { ...query, signal: req.signal });
  if (result.notModified) return new Response(null, { status: 304, headers: { "cache-control": "no-store" } });
  return json(result.body);
});
