import { agentCaller } from "@/lib/http/callers";
import { json, route } from "@/lib/http/handler";
import { cancelMessage } from "@/lib/messages/cancel";

export const dynamic = "force-dynamic";

/** §8.4 cancel. No body is defined: empty or `{}`, with or without a Content-Type. */
export const POST = route(async ({ req, params, optionalBody }) => {
  const principal = await agentCaller(req);
  await optionalBody();
  return json(await cancelMessage(principal, params.id ?? ""));
});
