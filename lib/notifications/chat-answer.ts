/**
 * A bound person's answer from a chat tool's button (Slack's interactions, Teams' invokes): the same
 * rules whatever the tool — a seat and the resolver right (§9.1) and the approval policy's
 * eligibility, then `resolveMessage` as that person with the tool's channel, a quorum's vote counted
 * as one approval — and the same refusals, each with the sentence the tool shows the clicker. The
 * tool does its own verification, binding lookup and card updates around it.
 */
import { isPendingApproval } from "../approvals/pending";
import type { Message } from "../generated/prisma/client";
import { humanResolveRefusal } from "../messages/access";
import type { AnswerChannel } from "../messages/answer-channel";
import { db } from "../db";
import { envelopeOf } from "../messages/record";
import { resolveMessage } from "../messages/resolve";
import { routingOf } from "../policies/routing";
import { seatFor } from "../principals/seats";
import { isHubError } from "@ma2h/protocol/errors";

export type ChatAnswer =
  | { outcome: "refused"; text: string }
  | { outcome: "already_decided"; text: string }
  /** A quorum's vote that did not complete it: the item stays open. */
  | { outcome: "recorded"; have: number; need: number }
  | { outcome: "answered" };

export async function answerAsPerson(
  userId: string,
  row: Message,
  value: unknown,
  channel: AnswerChannel,
): Promise<ChatAnswer> {
  const seat = await seatFor(userId, row.accountId);
  const refusal = seat
    ? humanResolveRefusal(seat, envelopeOf(row), routingOf(row))
    : "you have no seat in this account";
  if (refusal !== null)
    return { outcome: "refused", text: `You may not answer this item (${refusal}). Nothing was changed.` };
  if (row.status !== "open") return decided(row.status);
  let result: Awaited<ReturnType<typeof resolveMessage>>;
  try {
    result = await resolveMessage({ kind: "human", userId }, row.id, { resolution: "answered", value }, { channel });
  } catch (err) {
    if (isHubError(err) && err.code === "already_terminal") {
      const now = await db().message.findUnique({ where: { id: row.id }, select: { status: true } });
      return decided(now?.status ?? "settled");
    }
    if (isHubError(err) && err.code === "not_found")
      return { outcome: "refused", text: "You may not answer this item. Nothing was changed." };
    // The vote's own refusals name the rule and the reason (eligibility lost since submit, or an
    // approval that could change nothing: "not in group sre"); an answer its schema refuses, why.
    if (isHubError(err) && ["not_authorized", "invalid_field"].includes(err.code))
      return { outcome: "refused", text: `You may not answer this item (${err.message}). Nothing was changed.` };
    throw err;
  }
  if (isPendingApproval(result))
    return { outcome: "recorded", have: result.approvals.have, need: result.approvals.need };
  return { outcome: "answered" };
}

function decided(status: string): ChatAnswer {
  return { outcome: "already_decided", text: `This item was already decided (${status}). Nothing was changed.` };
}
