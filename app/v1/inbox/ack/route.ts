import { limits } from "@/lib/env";
import { readJsonObject } from "@/lib/http/body";
import { agentCaller } from "@/lib/http/callers";
import { refuseSessionParam } from "@/lib/http/drain-query";
import { json, route } from "@/lib/http/handler";
import { ackMailbox } from "@/lib/mailbox/ack";

export const dynamic = "force-dynamic";

/** §8.7 consume and §14.3 receipt: `{ids, note?}` → `{acked}`. */
export const POST = route(async ({ req, url }) => {
  const principal = await agentCaller(req);
  refuseSessionParam(url.searchParams);
  const body = await readJsonObject(req, { maxBytes: limits().maxBodyBytes, requireJson: true, allowEmpty: false });
  return json(await ackMailbox(principal, body));
});
