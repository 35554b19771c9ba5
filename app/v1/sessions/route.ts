import { sessionCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { listSessions } from "@/lib/sessions/access";
import { registerSession } from "@/lib/sessions/register";

export const dynamic = "force-dynamic";

/** §16.1 registration: agent credential, every field optional → `201 {session}`. */
export const POST = route(async ({ req, optionalBody }) => {
  const body = await optionalBody();
  return json({ session: await registerSession(req.headers, body) }, 201);
});

/** §16.4 `GET /v1/sessions`: own (or account-wide under the grant) with the applied `scope`. */
export const GET = route(async ({ req, url }) => {
  return json(await listSessions(await sessionCaller(req, false), url));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
