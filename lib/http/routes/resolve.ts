/**
 * The handler of `POST /v1/messages/{id}/resolve` (the route table, packages/protocol/src/routes.ts), served by its
 * App Router route file and by the protocol lane (server/protocol-lane.ts) alike.
 */
import { resolverCaller } from "../callers";
import { json, route } from "../handler";
import { resolveMessage } from "../../messages/resolve";
import { isPendingApproval } from "../../approvals/pending";
import { sessionNotFound } from "../../sessions/read";
import { presentSession, sessionParam } from "../../sessions/lease";

/** §8.8 resolve, for agents and operators through the same domain verb. */
export const resolveRoute = route(async ({ req, url, params, body }) => {
  const caller = await resolverCaller(req);
  // §8.8 `?session=`: the agent's own live session (404 foreign/unknown, 410 ended, §16.3); it does
  // not renew the lease (choice A21). A person holds no sessions, so any is unknown to them.
  const session = sessionParam(url);
  let resolver = caller;
  if (session !== null) {
    if (caller.kind !== "agent") throw sessionNotFound(session);
    const presented = await presentSession(caller.principal, session, { touchpoint: "presented", renew: false });
    resolver = { ...caller, sessionId: presented.id };
  }
  const payload = await body();
  const result = await resolveMessage(resolver, params.id ?? "", payload, { channel: "api" });
  // A vote that does not yet complete its ask's quorum is accepted, not a resolution (docs/policies.md).
  return json(result, isPendingApproval(result) ? 202 : 200);
});
