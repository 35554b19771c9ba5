import { agentCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { ackMailbox } from "@/lib/mailbox/ack";
import { presentSession, sessionParam } from "@/lib/sessions/lease";

export const dynamic = "force-dynamic";

/**
 * §8.7 consume and §14.3 receipt: `{ids, note?}` → `{acked}`. A presented `?session=` must be the
 * caller's own live session and is renewed (§16.2, R190); permission to ack stays the credential's.
 */
export const POST = route(async ({ req, url, body }) => {
  const principal = await agentCaller(req);
  const session = sessionParam(url);
  if (session) await presentSession(principal, session, { touchpoint: "presented", renew: true });
  const payload = await body();
  return json(await ackMailbox(principal, payload));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
