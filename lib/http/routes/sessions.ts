/** The handlers of `/v1/sessions` and `/v1/sessions/{id}` (the route table, packages/protocol/src/routes.ts). */
import { agentCaller, sessionCaller } from "../callers";
import { json, route } from "../handler";
import { consumeSubmitBudget } from "../../rate-limit";
import { deleteSession, listSessions, readSession } from "../../sessions/access";
import { registerSession } from "../../sessions/register";

/**
 * §16.1 registration: agent credential, every field optional → `201 {session}`. It counts against
 * the agent's `rate_limit.requests_per_minute` like a submit (§8.6), so a loop of registrations is
 * bounded by the same budget; `registerSession` then authenticates again without any cache.
 */
export const registerSessionRoute = route(async ({ req, optionalBody }) => {
  await consumeSubmitBudget((await agentCaller(req)).agentRowId);
  const body = await optionalBody();
  return json({ session: await registerSession(req.headers, body) }, 201);
});

/** §16.4 `GET /v1/sessions`: own (or account-wide under the grant) with the applied `scope`. */
export const listSessionsRoute = route(async ({ req, url }) => {
  return json(await listSessions(await sessionCaller(req, false), url));
});

/** §16 one session, under the §16.4 visibility rules (foreign and unknown alike are 404). */
export const readSessionRoute = route(async ({ req, params }) => {
  return json({ session: await readSession(await sessionCaller(req, false), params.id ?? "") });
});

/** §16.3 close (the owner), or the §16.4 kill-switch (an owner or admin person). Idempotent. */
export const closeSessionRoute = route(async ({ req, params }) => {
  return json({ session: await deleteSession(await sessionCaller(req, true), params.id ?? "") });
});
