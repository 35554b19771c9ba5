import { agentCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { parseDrainQuery } from "@/lib/http/drain-query";
import { drainMailbox } from "@/lib/mailbox/drain";

export const dynamic = "force-dynamic";

/** §8.7 drain: the caller's own mailbox, FIFO, signed per delivery; `?max=`, `?wait=`. */
export const GET = route(async ({ req, url }) => {
  const principal = await agentCaller(req);
  const query = parseDrainQuery(url.searchParams);
  return json(await drainMailbox(principal, { ...query, signal: req.signal }));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
