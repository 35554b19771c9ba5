import { limits } from "@/lib/env";
import { readJsonObject } from "@/lib/http/body";
import { agentCaller } from "@/lib/http/callers";
import { json, route } from "@/lib/http/handler";
import { cancelMessage } from "@/lib/messages/cancel";

export const dynamic = "force-dynamic";

/** §8.4 cancel. No body is defined: empty or `{}`, with or without a Content-Type. */
export const POST = route(async ({ req, params }) => {
  const principal = await agentCaller(req);
  await readJsonObject(req, { maxBytes: limits().maxBodyBytes, requireJson: false, allowEmpty: true });
  return json(await cancelMessage(principal, params.id ?? ""));
});
