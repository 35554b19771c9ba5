import { limits } from "@/lib/env";
import { readJsonObject } from "@/lib/http/body";
import { agentCaller } from "@/lib/http/callers";
import { json, route } from "@/lib/http/handler";
import { ackResponse } from "@/lib/messages/ack";

export const dynamic = "force-dynamic";

/** §14.3 response-leg ack. Every member is optional: an empty body (any Content-Type) is `{}`. */
export const POST = route(async ({ req, params }) => {
  const principal = await agentCaller(req);
  const body = await readJsonObject(req, { maxBytes: limits().maxBodyBytes, requireJson: false, allowEmpty: true });
  return json(await ackResponse(principal, params.id ?? "", body));
});
