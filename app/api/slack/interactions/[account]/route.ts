/**
 * `POST /api/slack/interactions/{account}`: a Slack button click for the account's Slack app.
 * Thin: the raw body (at most `max_body_bytes`) and Slack's signature headers go to
 * lib/slack/interactions.ts, which verifies before it parses; Slack gets `200` with an empty body.
 */
import { limits } from "@/lib/env";
import { readBodyBytes } from "@/lib/http/body";
import { route } from "@/lib/http/handler";
import { HubError } from "@ma2h/protocol/errors";
import { handleInteraction } from "@/lib/notifications/slack/interactions";

export const dynamic = "force-dynamic";

export const POST = route(async ({ req, params }) => {
  const bytes = await readBodyBytes(req, limits().maxBodyBytes);
  if (bytes === null) throw new HubError("invalid_field", "request body exceeds max_body_bytes");
  await handleInteraction(params.account ?? "", {
    timestamp: req.headers.get("x-slack-request-timestamp"),
    signature: req.headers.get("x-slack-signature"),
    rawBody: Buffer.from(bytes).toString("utf8"),
  });
  return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
});
