import { agentCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { parseDrainQuery } from "@/lib/http/drain-query";
import { drainMailbox } from "@/lib/mailbox/drain";
import { leaseHoldEnd, presentSession, sessionParam } from "@/lib/sessions/lease";

export const dynamic = "force-dynamic";

/**
 * §8.7 drain: the caller's own mailbox, FIFO, signed per delivery; `?max=`, `?wait=`. With
 * `?session=` (§8.7.1) the caller's own live session — renewed by this drain (§16.2) — also gets
 * the directives addressed to it; foreign or unknown is 404, ended is 410 (§16.3). Its `?wait=`
 * ends before the renewed lease does, by the stream's margin (§8.7.2), so the next drain renews it.
 */
export const GET = route(async ({ req, url }) => {
  const principal = await agentCaller(req);
  const query = parseDrainQuery(url.searchParams);
  const session = sessionParam(url);
  const presented = session ? await presentSession(principal, session, { touchpoint: "presented", renew: true }) : null;
  return json(
    await drainMailbox(principal, {
      ...query,
      sessionId: presented?.id ?? null,
      holdUntil: presented ? leaseHoldEnd(presented) : undefined,
      signal: req.signal,
    }),
  );
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
