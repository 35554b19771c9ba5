import { env } from "@/lib/env";
import { json, route } from "@/lib/http/handler";
import { isSameOrigin } from "@/lib/http/same-origin";
import { currentHuman } from "@/lib/next/current-human";
import { answerByPushAction, PUSH_ANSWER_STATUS } from "@/lib/notifications/web-push/answer";
import { HubError } from "@ma2h/protocol/errors";

export const dynamic = "force-dynamic";

/**
 * A notification's action button (docs/notifications.md "Answering from the notification"): the
 * Hub's service worker posts `{token}` — the single-use token the push carried for the chosen option.
 * Only from the Hub's own origin (the worker's fetch is same-origin); the browser's session, if any,
 * must be the token's person. Never logs the token, and the answer is never cached.
 */
export const POST = route(async ({ req, body }) => {
  if (!isSameOrigin(req.headers.get("origin"), req.headers.get("sec-fetch-site"), env().publicUrl))
    throw new HubError("not_authorized", "cross-site request refused");
  const { token } = await body();
  if (typeof token !== "string") throw new HubError("invalid_field", "token must be a string");
  const human = await currentHuman();
  const answer = await answerByPushAction(token, human?.userId ?? null);
  return json(answer, PUSH_ANSWER_STATUS[answer.state], { "cache-control": "no-store" });
});
