import { humanCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { readDirective } from "@/lib/mailbox/read";

export const dynamic = "force-dynamic";

/** A directive and its §14.2 delivery track, for operators of its account. */
export const GET = route(async ({ req, params }) => {
  const { userId } = await humanCaller(req);
  return json(await readDirective(userId, params.id ?? ""));
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
