/**
 * A click on a Teams card (docs/notifications.md "Microsoft Teams: who may click"), arriving as an
 * activity at `POST /api/teams/messages/{account}` — one URL per account, so the bot whose token
 * must be presented is known before the body is trusted. In order:
 * 1. the account and its connection (unknown or not connected: 404);
 * 2. the activity's JSON (bounded by the route) — only to learn the `serviceUrl` it names;
 * 3. the Bot Framework token (auth.ts): signature against the OpenID metadata's keys, issuer,
 *    audience = the app id, expiry, and `serviceurl` = the activity's `serviceUrl` — a failure is
 *    401, changes nothing and logs only its class;
 * 4. the tenant: the activity's tenant must be the connection's (another tenant: 403, nothing changed);
 * 5. only an `adaptiveCard/action` invoke with our answer data acts; anything else is acknowledged;
 * 6. the clicker: the Teams user (`from.aadObjectId`) bound to a Hub person (bindings.ts); unbound →
 *    a message with a bind link; no seat or no resolver right (§9.1, the approval policy) → a refusal
 *    naming the reason; otherwise `resolveMessage` as that person with `channel: "teams"` — the same
 *    §7 CAS, quorum vote and signed Response as any other answer.
 * The item's cards are then updated (posts.ts). The invoke response is what Teams shows the clicker:
 * the refreshed card on an answer, else a short message.
 */
import { z } from "zod";
import { clock } from "../../clock";
import { db } from "../../db";
import { env } from "../../env";
import { log } from "../../log";
import { routingOf } from "../../policies/routing";
import { SLUG_PATTERN } from "../../principals/accounts";
import { HubError } from "@ma2h/protocol/errors";
import { answerAsPerson } from "../chat-answer";
import { itemUrl } from "../text";
import { postItemOf, postStateOf } from "../slack/item-view";
import { verifyBotToken } from "./auth";
import { mintTeamsBindLink } from "./bind-links";
import { teamsPersonFor } from "./bindings";
import { ANSWER_VERB, inputAnswer, itemCard, parseAnswerData, parseInputData } from "./cards";
import { type OpenTeamsConnection, openTeamsConnection } from "./connection";
import { refreshTeamsPosts } from "./posts";

const activitySchema = z.looseObject({
  type: z.string(),
  name: z.string().optional(),
  serviceUrl: z.string().max(2000),
  from: z.looseObject({ id: z.string().max(200), aadObjectId: z.string().max(64).optional() }),
  conversation: z.looseObject({ id: z.string().max(500), tenantId: z.string().max(64).optional() }).optional(),
  channelData: z.looseObject({ tenant: z.looseObject({ id: z.string().max(64) }).optional() }).optional(),
  value: z.unknown().optional(),
});
type Activity = z.infer<typeof activitySchema>;

export type InvokeOutcome =
  | "ignored"
  | "unknown_item"
  | "unbound"
  | "refused"
  | "already_decided"
  | "answered"
  | "recorded";

/** What the route sends back: an invoke response body (Teams shows it to the clicker), or nothing. */
export interface InvokeReply {
  outcome: InvokeOutcome;
  body: Record<string, unknown> | null;
}

const say = (text: string) => ({
  statusCode: 200,
  type: "application/vnd.microsoft.activity.message",
  value: text,
});

export async function handleTeamsActivity(
  slug: string,
  req: { authorization: string | null; rawBody: string },
): Promise<InvokeReply> {
  const account = SLUG_PATTERN.test(slug)
    ? await db().account.findUnique({ where: { slug }, select: { id: true } })
    : null;
  const conn = account ? await openTeamsConnection(account.id) : null;
  if (!account || !conn) throw new HubError("not_found", "no such Teams bot");
  let json: unknown;
  try {
    json = JSON.parse(req.rawBody);
  } catch {
    json = null;
  }
  const parsed = activitySchema.safeParse(json);
  const serviceUrl = parsed.success ? parsed.data.serviceUrl : null;
  const verdict = await verifyBotToken(req.authorization, conn.appId, serviceUrl, clock.now());
  if (verdict !== "ok") {
    log.warn("teams activity refused", { error_class: `token_${verdict}` });
    throw new HubError("unauthenticated", "the Bot Framework token did not verify");
  }
  if (!parsed.success) throw new HubError("validation_error", "not a Bot Framework activity");
  const activity = parsed.data;
  const tenant = activity.conversation?.tenantId ?? activity.channelData?.tenant?.id;
  if (tenant?.toLowerCase() !== conn.tenantId) {
    log.warn("teams activity refused", { error_class: "other_tenant" });
    throw new HubError("not_authorized", "the activity is from another Microsoft tenant");
  }
  const action = (activity.value as { action?: { type?: unknown; verb?: unknown; data?: unknown } } | undefined)
    ?.action;
  if (activity.type !== "invoke" || activity.name !== "adaptiveCard/action" || action?.verb !== ANSWER_VERB)
    return { outcome: "ignored", body: null };
  const reply = await click(conn, activity, action.data);
  log.info("teams interaction", { outcome: reply.outcome });
  return reply;
}

async function click(conn: OpenTeamsConnection, activity: Activity, data: unknown): Promise<InvokeReply> {
  const button = parseAnswerData(data);
  const messageId = button?.messageId ?? parseInputData(data);
  const row = messageId ? await db().message.findUnique({ where: { id: messageId } }) : null;
  // Another account's item is indistinguishable from no item (§9.1).
  if (!row || row.accountId !== conn.accountId)
    return { outcome: "unknown_item", body: say("This item is not known to the Hub.") };
  // A button carries its option's value; a small input ask's form, the answer object.
  const value = button ? button.value : inputAnswer(postItemOf(row, routingOf(row)), data);
  if (value === null) return { outcome: "unknown_item", body: say("This item is not known to the Hub.") };
  const teamsUserId = activity.from.aadObjectId?.toLowerCase();
  const userId = teamsUserId ? await teamsPersonFor(conn.accountId, conn.tenantId, teamsUserId) : null;
  if (!teamsUserId || !userId) {
    const link = teamsUserId
      ? mintTeamsBindLink(
          { accountId: conn.accountId, tenantId: conn.tenantId, teamsUserId, chatUserId: activity.from.id },
          env().publicUrl,
          clock.now(),
        )
      : null;
    return {
      outcome: "unbound",
      body: say(
        link
          ? `Your Teams user is not linked to a Hub account yet. Link it here, then click again: ${link}`
          : "Your Teams user cannot be linked to a Hub account (no Entra object id). Nothing was changed.",
      ),
    };
  }
  const answer = await answerAsPerson(userId, row, value, "teams");
  switch (answer.outcome) {
    case "refused":
      return { outcome: "refused", body: say(answer.text) };
    case "already_decided":
      await refreshTeamsPosts(row.id);
      return { outcome: "already_decided", body: say(answer.text) };
    case "recorded":
      await refreshTeamsPosts(row.id);
      return {
        outcome: "recorded",
        body: say(
          `Your approval is recorded (${answer.have} of ${answer.need}). The item stays open until it has ${answer.need}; change or withdraw your answer on its page: ${itemUrl(env().publicUrl, row.id)}`,
        ),
      };
    case "answered":
      await refreshTeamsPosts(row.id);
      return { outcome: "answered", body: await cardReply(row.id) };
  }
}

/** The item's card as it is now, for the clicker's view (Universal Actions' card refresh). */
async function cardReply(id: string): Promise<Record<string, unknown>> {
  const view = await postStateOf(id);
  if (!view) return say("Answered.");
  return {
    statusCode: 200,
    type: "application/vnd.microsoft.card.adaptive",
    value: itemCard(view.item, { inboxUrl: itemUrl(env().publicUrl, id), state: view.state }),
  };
}
