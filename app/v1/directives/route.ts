import { limits } from "@/lib/env";
import { readJsonObject } from "@/lib/http/body";
import { humanCaller } from "@/lib/http/callers";
import { json, route } from "@/lib/http/handler";
import { authorDirective } from "@/lib/mailbox/author";

export const dynamic = "force-dynamic";

/** §13: an operator writes a directive into one agent's mailbox. */
export const POST = route(async ({ req, log }) => {
  const author = await humanCaller(req);
  const body = await readJsonObject(req, { maxBytes: limits().maxBodyBytes, requireJson: true, allowEmpty: false });
  const directive = await authorDirective(author, body);
  log.info("directive queued", { directive_id: directive.id });
  return json(directive, 201);
});
