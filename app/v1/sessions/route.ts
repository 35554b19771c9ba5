import { agentCaller, sessionCaller } from "@/lib/http/callers";
import { consumeSubmitBudget } from "@/lib/rate-limit";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { listSessions } from "@/lib/sessions/access";
import { registerSession } from "@/lib/sessions/register";

export const dynamic = "force-dynamic";

/**
 * §16.1 registration: agent credential, every field optional → `201 {session}`. It counts against
 * the agent's `rate_limit.requests_per_minute` like a submit (§8.6), so a loop of registrations is
 * bounded by the same budget; `registerSession` then authenticates again without any cache.
 */
export const POST = route(async ({ req, optionalBody }) => {
  await consumeSubmitBudget((await agentCaller(req)).agentRowId);
  const body = await optionalBody();
  return json({ session: await registerSession(req.headers, body) }, 201);
});

/** §16.4 `GET /v1/sessions`: own (or account-wide under the grant) with the applied `scope`. */
export const GET = route(async ({ req, url }) => {
  return json(await listSessions(await sessionCaller(req, false), url));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
