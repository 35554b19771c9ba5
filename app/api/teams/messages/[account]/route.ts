/**
 * `POST /api/teams/messages/{account}`: the messaging endpoint of the account's Teams bot (the URL
 * registered in its Azure Bot resource). Thin: the raw body (at most `max_body_bytes`) and the
 * `Authorization` header go to lib/notifications/teams/invoke.ts, which verifies the Bot Framework
 * token before it acts; the answer is the invoke response Teams shows the clicker (or an empty 200).
 */
import { limits } from "@/lib/env";
import { readBodyBytes } from "@/lib/http/body";
import { route } from "@/lib/http/handler";
import { HubError } from "@ma2h/protocol/errors";
import { handleTeamsActivity } from "@/lib/notifications/teams/invoke";

export const dynamic = "force-dynamic";

export const POST = route(async ({ req, params }) => {
  const bytes = await readBodyBytes(req, limits().maxBodyBytes);
  if (bytes === null) throw new HubError("invalid_field", "request body exceeds max_body_bytes");
  const reply = await handleTeamsActivity(params.account ?? "", {
    authorization: req.headers.get("authorization"),
    rawBody: Buffer.from(bytes).toString("utf8"),
  });
  if (!reply.body) return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
  return Response.json(reply.body, { status: 200, headers: { "cache-control": "no-store" } });
});
