/** The handlers of `/v1/directives` and `/v1/directives/{id}` (the route table, packages/protocol/src/routes.ts). */
import { humanCaller } from "../callers";
import { json, route } from "../handler";
import { authorDirective } from "../../mailbox/author";
import { readDirective } from "../../mailbox/read";

/** §13: an operator writes a directive into one agent's mailbox. */
export const authorDirectiveRoute = route(async ({ req, log, body }) => {
  const author = await humanCaller(req);
  const payload = await body();
  const directive = await authorDirective(author, payload);
  log.info("directive queued", { directive_id: directive.id });
  return json(directive, 201);
});

/** A directive and its §14.2 delivery track, for operators of its account. */
export const readDirectiveRoute = route(async ({ req, params }) => {
  const { userId } = await humanCaller(req);
  return json(await readDirective(userId, params.id ?? ""));
});
