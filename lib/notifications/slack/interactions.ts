/**
 * A click on a Slack button (docs/notifications.md "Slack: who may click"), arriving at
 * `POST /api/slack/interactions/{account}` — one URL per account, so the right signing secret is
 * known before the body is trusted. In order:
 * 1. the account and its connection (unknown or not connected: 404, like any unknown thing);
 * 2. the v0 signature and the 5-minute timestamp window (signature.ts) — BEFORE the body is parsed;
 *    a failure is 401, changes nothing and logs only its class;
 * 3. the `payload` form field (zod), from the connection's workspace; only `block_actions` with one
 *    of our answer buttons acts — an item of another account is treated as unknown;
 * 4. the clicker: a Slack user bound to a Hub person by that person (bindings.ts); unbound → an
 *    ephemeral message with a bind link; bound without a seat or the resolver right (§9.1) → an
 *    ephemeral refusal; otherwise `resolveMessage` as `human:<handle>`, audited with
 *    `channel: "slack"` — the same §7 CAS and the same signed Response as any other answer.
 * Every post of the item is then updated to show the outcome (posts.ts). Under a quorum
 * (docs/policies.md "Quorum") a click is the person's vote: one that does not complete it gets an
 * ephemeral "recorded (1 of 2)" and every post of the item shows the approvals so far ("1 of 2
 * approvals — alice: approve"); a click the policy refuses gets an ephemeral naming the rule and the
 * reason ("sponsor of this agent", "not in group sre"). Slack gets `200` with an empty body; the work
 * is done inline (it is a few queries and one or two Slack calls).
 */
import { z } from "zod";
import { clock } from "../../clock";
import { db } from "../../db";
import { env } from "../../env";
import { log } from "../../log";
import { answerAsPerson } from "../chat-answer";
import { SLUG_PATTERN } from "../../principals/accounts";
import { HubError } from "@ma2h/protocol/errors";
import { failureOf, slackClient } from "./api";
import { mintBindLink } from "./bind-links";
import { slackPersonFor } from "./bindings";
import { ANSWER_ACTION_PREFIX, parseButtonValue } from "./blocks";
import { type OpenConnection, openConnection } from "./connection";
import { refreshApprovals, refreshPosts } from "./posts";
import { itemUrl } from "../text";
import { verifySlackSignature } from "./signature";

const payloadSchema = z.looseObject({
  type: z.string(),
  team: z.looseObject({ id: z.string(), domain: z.string().optional().catch(undefined) }),
  // `username` (else the older `name`) is the clicker's Slack name, shown on the bind page so the
  // person confirming sees who it is without the Hub needing the `users:read` scope.
  user: z.looseObject({
    id: z.string().min(1).max(64),
    username: z.string().optional().catch(undefined),
    name: z.string().optional().catch(undefined),
  }),
  channel: z.looseObject({ id: z.string() }).optional(),
  container: z.looseObject({ channel_id: z.string().optional() }).optional(),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().optional() })).optional(),
});
type Payload = z.infer<typeof payloadSchema>;

/** What the click came to (for the log and the tests' reading of it); never content. */
export type ClickOutcome =
  | "ignored"
  | "unknown_item"
  | "unbound"
  | "refused"
  | "already_decided"
  | "answered"
  /** A quorum's vote that did not complete it: the item stays open. */
  | "recorded";

export interface SlackRequest {
  timestamp: string | null;
  signature: string | null;
  rawBody: string;
}

export async function handleInteraction(slug: string, req: SlackRequest): Promise<ClickOutcome> {
  const account = SLUG_PATTERN.test(slug)
    ? await db().account.findUnique({ where: { slug }, select: { id: true } })
    : null;
  const conn = account ? await openConnection(account.id) : null;
  if (!account || !conn) throw new HubError("not_found", "no such Slack app");
  const verdict = verifySlackSignature(conn.signingSecret, req, req.rawBody, clock.now().getTime());
  if (verdict !== "ok") {
    log.warn("slack interaction refused", { error_class: `signature_${verdict}` });
    throw new HubError("unauthenticated", "the Slack request signature did not verify");
  }
  const payload = parsePayload(req.rawBody);
  if (payload.team.id !== conn.teamId)
    throw new HubError("not_authorized", "the interaction is from another Slack workspace");
  const action =
    payload.type === "block_actions"
      ? payload.actions?.find((a) => a.action_id.startsWith(ANSWER_ACTION_PREFIX))
      : undefined;
  if (!action) return "ignored"; // "Open in inbox" (a URL button) and anything else: nothing to do
  const outcome = await click(conn, payload, action.value ?? "");
  log.info("slack interaction", { outcome });
  return outcome;
}

function parsePayload(rawBody: string): Payload {
  const field = new URLSearchParams(rawBody).get("payload");
  let json: unknown;
  try {
    json = JSON.parse(field ?? "");
  } catch {
    throw new HubError("validation_error", "payload: a JSON interaction payload is required");
  }
  const parsed = payloadSchema.safeParse(json);
  if (!parsed.success) throw new HubError("validation_error", "payload: not a Slack interaction payload");
  return parsed.data;
}

async function click(conn: OpenConnection, payload: Payload, rawValue: string): Promise<ClickOutcome> {
  const slackUserId = payload.user.id;
  const say = (text: string) => ephemeral(conn, payload, text);
  const button = parseButtonValue(rawValue);
  const row = button ? await db().message.findUnique({ where: { id: button.messageId } }) : null;
  // Another account's item is indistinguishable from no item (§9.1).
  if (!button || !row || row.accountId !== conn.accountId) {
    await say("This item is not known to the Hub.");
    return "unknown_item";
  }
  const userId = await slackPersonFor(conn.accountId, slackUserId);
  if (!userId) {
    const link = await mintBindLink(
      {
        accountId: conn.accountId,
        teamId: conn.teamId,
        slackUserId,
        slackUserName: payload.user.username ?? payload.user.name ?? null,
        teamDomain: payload.team.domain ?? null,
      },
      env().publicUrl,
      clock.now(),
    );
    await say(`Your Slack user is not linked to a Hub account yet. Link it here, then click again: ${link}`);
    return "unbound";
  }
  const answer = await answerAsPerson(userId, row, button.value, "slack");
  switch (answer.outcome) {
    case "refused":
      await say(answer.text);
      return "refused";
    case "already_decided":
      await say(answer.text);
      await refreshPosts(row.id);
      return "already_decided";
    case "recorded":
      await say(
        `Your approval is recorded (${answer.have} of ${answer.need}). The item stays open until it has ${answer.need}; change or withdraw your answer on its page: ${itemUrl(env().publicUrl, row.id)}`,
      );
      await refreshApprovals(row.id);
      return "recorded";
    case "answered":
      await refreshPosts(row.id);
      return "answered";
  }
}

/** A message only the clicker sees, in the conversation they clicked in; best effort. */
async function ephemeral(conn: OpenConnection, payload: Payload, text: string): Promise<void> {
  const channel = payload.channel?.id ?? payload.container?.channel_id;
  if (!channel) return;
  try {
    await (await slackClient(conn.botToken)).chat.postEphemeral({ channel, user: payload.user.id, text });
  } catch (err) {
    log.warn("slack ephemeral message failed", { error_class: failureOf(err).errorClass });
  }
}
