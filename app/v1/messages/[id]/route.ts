import { agentCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { parsePollQuery } from "@/lib/http/poll-query";
import { readMessage } from "@/lib/messages/read";

export const dynamic = "force-dynamic";

/** §8.2 pull, with `?wait=` long-poll and `?since=` (304 when unchanged). */
export const GET = route(async ({ req, url, params }) => {
  const principal = await agentCaller(req);
  const query = parsePollQuery(url.searchParams);
  const result = await readMessage(principal, params.id ?? "", { ...query, signal: req.signal });
  if (result.notModified) return new Response(null, { status: 304, headers: { "cache-control": "no-store" } });
  return json(result.body);
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
