import { sessionCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { deleteSession, readSession } from "@/lib/sessions/access";

export const dynamic = "force-dynamic";

/** §16 one session, under the §16.4 visibility rules (foreign and unknown alike are 404). */
export const GET = route(async ({ req, params }) => {
  return json({ session: await readSession(await sessionCaller(req, false), params.id ?? "") });
});

/** §16.3 close (the owner), or the §16.4 kill-switch (an owner or admin person). Idempotent. */
export const DELETE = route(async ({ req, params }) => {
  return json({ session: await deleteSession(await sessionCaller(req, true), params.id ?? "") });
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH };
