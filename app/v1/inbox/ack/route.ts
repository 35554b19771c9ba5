import { agentCaller } from "@/lib/http/callers";
import { refuseSessionParam } from "@/lib/http/drain-query";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { ackMailbox } from "@/lib/mailbox/ack";

export const dynamic = "force-dynamic";

/** §8.7 consume and §14.3 receipt: `{ids, note?}` → `{acked}`. */
export const POST = route(async ({ req, url, body }) => {
  const principal = await agentCaller(req);
  refuseSessionParam(url.searchParams);
  const payload = await body();
  return json(await ackMailbox(principal, payload));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
