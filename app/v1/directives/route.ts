import { humanCaller } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { authorDirective } from "@/lib/mailbox/author";

export const dynamic = "force-dynamic";

/** §13: an operator writes a directive into one agent's mailbox. */
export const POST = route(async ({ req, log, body }) => {
  const author = await humanCaller(req);
  const payload = await body();
  const directive = await authorDirective(author, payload);
  log.info("directive queued", { directive_id: directive.id });
  return json(directive, 201);
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
