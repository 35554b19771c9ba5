/**
 * Answering from the mail (docs/notifications.md "Answering from the mail"): what one answer
 * link may do now, and doing it. `inspectAnswerLink` only reads — it is what `GET /e/{token}` shows,
 * so a mail scanner that opens every link changes nothing. `answerByLink` is the `POST` from that
 * page: it re-checks everything at that moment and resolves through `resolveMessage` — the same §7
 * compare-and-set and §9.1 resolver rule as the inbox, with the attested `human:<handle>` of the
 * person the link was minted for — spending the single-use token in the resolving transaction and
 * recording `channel: "email"` in the audit event. A refusal names no other item and changes nothing.
 *
 * An ask a quorum rule routed (docs/policies.md "Quorum"): the confirmed link is the person's vote.
 * One that does not complete the quorum leaves the item open and the page says "1 of 2 — your
 * approval is recorded"; a link is a first answer only — once the person has a vote on the item,
 * their other links are refused and point to the signed-in item page, where a vote is changed or
 * withdrawn (a mail can be forwarded: choice in docs/decisions/approval-policies.md). A refusal by
 * the policy names its rule and reason ("sponsor of this agent", "not in group sre").
 */
import { routingOf } from "../policies/routing";
import { clock } from "../clock";
import { db } from "../db";
import { log } from "../log";
import { humanResolveRefusal } from "../messages/access";
import { allowedResolversOf, envelopeOf } from "../messages/record";
import { resolveMessage } from "../messages/resolve";
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import { isHubError } from "@ma2h/protocol/errors";
import { isPendingApproval } from "../approvals/pending";
import { seatFor } from "../principals/seats";
import { findAnswerToken, spendAnswerToken } from "./answer-tokens";
import { CHANNEL_PUSH } from "./kinds";
import { accountNotificationSettings } from "./settings";

/** What the page shows of the item: no more than the mail already carried. */
export interface LinkItem {
  id: string;
  title: string;
  agent: string;
  priority: string;
  optionLabel: string;
  /** M, when a quorum rule routed the item: the person's answer is one of the approvals it needs. */
  approvalsNeeded?: number;
}

export type LinkState =
  /** Unknown, malformed or foreign to this Hub: indistinguishable from each other. */
  | { kind: "invalid" }
  /** Spent: a link is spent only by the answer it carried, so that answer was recorded. */
  | { kind: "used" }
  | { kind: "expired" }
  /** The item is no longer open (answered, expired or cancelled, by anyone, by any channel). */
  | { kind: "closed" }
  /**
   * The person's seat was removed, or they may no longer resolve the item (§9.1); `reason` when the
   * item's rules say why (the policy's rule and reason), never for a removed seat.
   */
  | { kind: "refused"; reason?: string }
  /** A session of someone else is open in this browser: the link is not theirs to use. */
  | { kind: "other_person" }
  /**
   * A session is wanted and there is none: the account wants one for every email answer
   * (`account`), or for this item because of its priority or its named resolvers (`sensitive`).
   */
  | { kind: "sign_in"; item: LinkItem; why: "account" | "sensitive" }
  | { kind: "ready"; item: LinkItem }
  | { kind: "answered"; item: LinkItem }
  /** A quorum's vote recorded that did not complete it: the item stays open ("1 of 2"). */
  | { kind: "recorded"; item: LinkItem; approvals: { have: number; need: number } }
  /**
   * A quorum's item the person already answered (by any channel): a link does not change a vote; the
   * signed-in item page does. `answer` is their recorded answer's label.
   */
  | { kind: "voted"; item: LinkItem; answer: string };

type Checked = {
  state: LinkState;
  tokenHash?: string;
  userId?: string;
  messageId?: string;
  option?: string;
  /** The channel whose notification carried the token: a mail's link or a push's action. */
  channel?: "email" | "push";
};

/** Priorities whose asks an email link alone does not answer by default. */
const SENSITIVE_PRIORITIES = new Set(["high", "urgent"]);

/**
 * Why the link alone (no Hub session) may not answer, or null when it may: the account must allow
 * it at all, and — for a high/urgent item or one whose agent named its resolvers (§9.1
 * `allowed_resolvers`) — the owner must also have allowed it for those. A mail can be forwarded or
 * read over a shoulder; a named resolver or a high priority says the answer matters enough to want
 * the person's own sign-in.
 */
async function sessionWanted(
  accountId: string,
  priority: string,
  envelope: ReturnType<typeof envelopeOf>,
): Promise<"account" | "sensitive" | null> {
  const settings = await accountNotificationSettings(accountId);
  if (!settings.emailAnswerWithoutSignIn) return "account";
  const sensitive = SENSITIVE_PRIORITIES.has(priority) || allowedResolversOf(envelope) !== undefined;
  return sensitive && !settings.emailAnswerSensitiveWithoutSignIn ? "sensitive" : null;
}

/** Every check, in order, as of `now`; reads only. `sessionUserId` is the browser's signed-in person, if any. */
async function check(token: string, sessionUserId: string | null, now: Date): Promise<Checked> {
  const link = await findAnswerToken(token);
  if (!link) return { state: { kind: "invalid" } };
  if (link.usedAt) return { state: { kind: "used" } };
  if (link.expiresAt < now) return { state: { kind: "expired" } };
  const row = await db().message.findUnique({ where: { id: link.messageId } });
  if (!row) return { state: { kind: "invalid" } };
  if (row.status !== "open") {
    // The token was read before the item, in another query: the answer that closed the item may
    // have spent this very link in between (a double click). The spend and the close commit
    // together, so a second read of the token now says which it was.
    const again = await findAnswerToken(token);
    return { state: { kind: again?.usedAt ? "used" : "closed" } };
  }
  const envelope = envelopeOf(row);
  const seat = await seatFor(link.userId, row.accountId);
  const routing = routingOf(row);
  if (!seat) return { state: { kind: "refused" } };
  const refusal = humanResolveRefusal(seat, envelope, routing);
  if (refusal !== null) return { state: { kind: "refused", reason: refusal } };
  // A routed ask whose rules keep one-click answers out of mail (`email_answers: false`) is answered on
  // its signed-in page only (docs/policies.md): a link minted before the policy said so is refused too.
  if (routing?.email_answers === false)
    return {
      state: {
        kind: "refused",
        reason: "this item is answered on its page in the Hub, not from mail or a notification",
      },
    };
  if (sessionUserId !== null && sessionUserId !== link.userId) return { state: { kind: "other_person" } };
  const labelOf = (value: string) =>
    (envelope.type === "ask" ? effectiveOptions(envelope.request).find((o) => o.value === value)?.label : undefined) ??
    value;
  const item: LinkItem = {
    id: row.id,
    title: row.title,
    agent: envelope.agent.id,
    priority: row.priority,
    optionLabel: labelOf(link.option),
    ...(routing?.quorum ? { approvalsNeeded: routing.quorum.approvals } : {}),
  };
  const channel = link.notification.channel === CHANNEL_PUSH ? ("push" as const) : ("email" as const);
  const ids = { tokenHash: link.tokenHash, userId: link.userId, messageId: row.id, option: link.option, channel };
  if (sessionUserId === null) {
    const why = await sessionWanted(row.accountId, row.priority, envelope);
    if (why !== null) return { state: { kind: "sign_in", item, why }, ...ids };
  }
  // Under a quorum a link only gives a first answer: a vote already recorded is changed or withdrawn
  // on the signed-in item page.
  if (routing?.quorum) {
    const mine = await db().approvalVote.findFirst({
      where: { messageId: row.id, handle: seat.handle },
      select: { resolution: true, value: true },
    });
    if (mine) {
      const value = mine.value === null ? null : (JSON.parse(mine.value) as unknown);
      const answer = typeof value === "string" ? labelOf(value) : mine.resolution;
      return { state: { kind: "voted", item, answer } };
    }
  }
  return { state: { kind: "ready", item }, ...ids };
}

/** What `GET /e/{token}` shows. Never writes: no token spent, no session, no audit. */
export async function inspectAnswerLink(token: string, sessionUserId: string | null): Promise<LinkState> {
  return (await check(token, sessionUserId, clock.now())).state;
}

class LinkSpent extends Error {}

/** `POST /e/{token}`: re-checks, then answers the item with the link's option as its person. */
export async function answerByLink(token: string, sessionUserId: string | null): Promise<LinkState> {
  const c = await check(token, sessionUserId, clock.now());
  if (c.state.kind !== "ready") return c.state;
  const { item } = c.state;
  const tokenHash = c.tokenHash as string;
  let result: Awaited<ReturnType<typeof resolveMessage>>;
  try {
    result = await resolveMessage(
      { kind: "human", userId: c.userId as string },
      c.messageId as string,
      { resolution: "answered", value: c.option },
      {
        channel: c.channel ?? "email",
        withResolution: async (tx, now) => {
          if (!(await spendAnswerToken(tx, tokenHash, now))) throw new LinkSpent();
        },
      },
    );
  } catch (err) {
    // Lost a race since the check (another answer, or this same link posted twice by a double
    // click): nothing was written; say what is true now — "used" when this link's answer won.
    const spent = err instanceof LinkSpent;
    if (spent || (isHubError(err) && err.code === "already_terminal")) {
      const now = (await check(token, sessionUserId, clock.now())).state;
      return now.kind === "ready" ? { kind: spent ? "used" : "closed" } : now;
    }
    if (isHubError(err) && err.code === "not_found") return { kind: "refused" };
    // The vote's own refusals (docs/policies.md "Quorum"): eligibility lost since the mail (a new
    // sponsor, a viewer), or an approval that could change nothing ("not in group sre").
    if (isHubError(err) && (err.code === "not_authorized" || err.code === "invalid_field"))
      return { kind: "refused", reason: err.message };
    throw err;
  }
  if (isPendingApproval(result)) {
    log.info(`approval recorded by ${c.channel}`, { message_id: item.id });
    return { kind: "recorded", item, approvals: result.approvals };
  }
  log.info(`item answered by ${c.channel}`, { message_id: item.id });
  return { kind: "answered", item };
}
