/**
 * A person's vote on an ask a quorum rule routed (docs/policies.md "Quorum"). Every resolve of such
 * an ask by a person comes here from `resolveMessage` (lib/messages/resolve.ts), whatever the
 * channel: in one transaction that locks the message row, the vote is recorded (or replaced) and
 * audited, the eligible votes are recounted, and — when one answer has its approvals and every
 * `require_from` group, or the vote is a decline or a veto — the ask goes terminal through the same
 * §7 compare-and-set as any answer (lib/messages/lifecycle.ts), attested to the person whose vote
 * completed it and carrying only their comment. Otherwise the ask stays `open` (the agent sees
 * nothing until the Response) and the caller gets a `PendingApproval`.
 */
import type { Prisma } from "../generated/prisma/client";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import type { ResolveResult } from "@ma2h/protocol/api-bodies";
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import type { Message } from "@ma2h/protocol/message";
import { isEditedAnswer, type ResolveRequest } from "@ma2h/protocol/rules";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import type { Message as MessageRow } from "../generated/prisma/client";
import { afterTerminal, afterVote } from "./after-terminal";
import type { ResolveChannel } from "./answer-channel";
import { terminalConflict } from "./conflict";
import { type CommitResult, commitTerminal } from "./lifecycle";
import { resolvedOutcome } from "./outcomes";
import { applyOwedTerminalInTx } from "./undeliverable";
import type { Quorum, Routing } from "../policies/evaluate";
import { routingOf } from "../policies/routing";
import { publishInboxChange } from "../pubsub/inbox";
import { votersNow } from "../approvals/eligibility";
import type { PendingApproval } from "../approvals/pending";
import { type CountedVote, groupsStillNeeded, tally, voteKey } from "../approvals/tally";
import { lockMessageForVote } from "./approvals.sql";

type StoredVote = {
  membershipId: string;
  handle: string;
  resolution: string;
  value: string | null;
  forHandle: string | null;
};
const STORED_VOTE = { membershipId: true, handle: true, resolution: true, value: true, forHandle: true } as const;
/** Each stored vote's delegator (docs/policies.md "Delegation"), by seat. */
const forOf = (votes: readonly StoredVote[]) => new Map(votes.map((v) => [v.membershipId, v.forHandle]));
const keyOfStored = (v: StoredVote) =>
  voteKey({ resolution: v.resolution, value: v.value === null ? undefined : JSON.parse(v.value) });

/** A confirm ask's `deny`: the second of its two options (§5.2 synthesizes `approve`, `deny`). */
function denyOf(envelope: Message): string | null {
  if (envelope.type !== "ask" || envelope.request.mode !== "confirm") return null;
  return effectiveOptions(envelope.request)[1]?.value ?? null;
}

/** The votes as the count reads them, each with its person's eligibility now. */
function counted(votes: readonly StoredVote[], voters: Awaited<ReturnType<typeof votersNow>>): CountedVote[] {
  return votes.map((v) => {
    const now = voters.get(v.membershipId);
    return {
      handle: v.handle,
      as: now?.as ?? v.handle,
      key: keyOfStored(v),
      counts: now?.ineligible === null,
      groups: now?.groups ?? [],
    };
  });
}

type Outcome =
  | { kind: "terminal" }
  | { kind: "owed"; commit: CommitResult }
  | { kind: "done"; commit: CommitResult }
  | { kind: "pending"; have: number; need: number };

/**
 * Records `actor`'s vote (already authorized by `authorizeResolver`, and its body checked by
 * `checkResolution`) and completes the ask when it should. Throws `403 not_authorized` when the
 * person is no longer eligible or their vote could change nothing, `422 invalid_field` for a
 * free-form answer under a quorum of more than one, `409 already_terminal` once the ask is settled.
 */
export async function castVote(
  row: MessageRow,
  envelope: Message,
  routing: Routing & { quorum: Quorum },
  request: ResolveRequest,
  actor: string,
  via?: ResolveChannel,
  onBehalfOf?: string,
): Promise<ResolveResult | PendingApproval> {
  const quorum = routing.quorum;
  const handle = actor.slice("human:".length);
  // §5.2 lets a Hub decline to offer `allow_edit`: a free-form answer could never be matched by M people.
  if (
    quorum.approvals > 1 &&
    envelope.type === "ask" &&
    request.resolution === "answered" &&
    isEditedAnswer(envelope.request, request.value)
  )
    throw new HubError(
      "invalid_field",
      `this ask needs ${quorum.approvals} approvals of the same answer: choose one of its options (a free-form answer is not offered under a quorum)`,
    );
  const key = voteKey(request);
  const now = clock.now();
  const outcome = await db().$transaction(async (tx): Promise<Outcome> => {
    const locked = await lockMessageForVote(tx, row.id);
    if (locked === null || locked.status !== "open") return { kind: "terminal" };
    // §7: an overdue ask is expired by this call, never voted on.
    if (locked.expiresAt !== null && locked.expiresAt.getTime() < now.getTime())
      return { kind: "owed", commit: await applyOwedTerminalInTx(tx, row.id, now) };
    const seat = await tx.membership.findFirst({ where: { accountId: row.accountId, handle }, select: { id: true } });
    if (seat === null) throw new HubError("not_found", "no such message");
    const existing: StoredVote[] = await tx.approvalVote.findMany({
      where: { messageId: row.id },
      select: STORED_VOTE,
    });
    const delegators = forOf(existing).set(seat.id, onBehalfOf ?? null);
    const voters = await votersNow(tx, row, routing, [...existing.map((v) => v.membershipId), seat.id], delegators);
    const me = voters.get(seat.id);
    if (me === undefined || me.ineligible !== null)
      throw new HubError("not_authorized", me?.ineligible ?? "you may not resolve this message");
    const mine = existing.find((v) => v.membershipId === seat.id);
    const before = counted(existing, voters);
    // The same vote again: nothing new is recorded, and the answer is the same.
    if (mine !== undefined && keyOfStored(mine) === key && mine.forHandle === (onBehalfOf ?? null))
      return { kind: "pending", have: tally(quorum, before).have[key] ?? 0, need: quorum.approvals };
    const veto = quorum.veto !== null && key === denyOf(envelope);
    const ends = request.resolution === "declined" || request.resolution === "dismissed" || veto;
    if (!ends) {
      const missing = groupsStillNeeded(quorum, before, { handle, as: me.as, key, groups: me.groups });
      if (missing.length > 0) {
        const rule = quorum.require_from.find((g) => g.group === missing[0])?.rule;
        throw new HubError(
          "not_authorized",
          `the account's approval policy (rule ${rule}) has the approvals it needs for ${key} but one from ${missing.join(", ")}: not in group ${missing.join(", ")}`,
        );
      }
    }
    await recordVote(tx, row, seat.id, handle, request, mine, now, via?.channel, onBehalfOf);
    await via?.withResolution?.(tx, now);
    const after = counted(
      [
        ...existing.filter((v) => v.membershipId !== seat.id),
        {
          membershipId: seat.id,
          handle,
          resolution: request.resolution,
          value: request.value === undefined ? null : JSON.stringify(request.value),
          forHandle: onBehalfOf ?? null,
        },
      ],
      voters,
    );
    const count = tally(quorum, after);
    await publishInboxChange(tx, row.accountId, row.id); // every open view of the item recounts
    if (ends || count.complete === key) {
      const outcome = { ...resolvedOutcome(envelope, request, actor, now), channel: via?.channel, onBehalfOf };
      return { kind: "done", commit: await commitTerminal(tx, row, envelope, "resolve", outcome, now) };
    }
    return { kind: "pending", have: count.have[key] ?? 0, need: quorum.approvals };
  });
  if (outcome.kind === "pending") {
    await afterVote(row.id, handle, now);
    return { id: row.id, status: "open", approvals: { have: outcome.have, need: outcome.need } };
  }
  if (outcome.kind !== "terminal") await afterTerminal(outcome.commit);
  if (outcome.kind === "done" && outcome.commit.won && outcome.commit.resolutionId)
    return { id: row.id, status: request.resolution, resolution_id: outcome.commit.resolutionId };
  const settled = await db().message.findUniqueOrThrow({ where: { id: row.id }, select: { id: true, status: true } });
  throw terminalConflict(settled);
}

/**
 * Writes the person's vote (a first one, or one replacing their earlier answer) and its audit event,
 * with the channel it came by (`email`, `slack`, the inbox's; absent over `/v1`), as an answer's.
 */
async function recordVote(
  tx: Tx,
  row: Pick<MessageRow, "id" | "accountId">,
  membershipId: string,
  handle: string,
  request: ResolveRequest,
  replaced: StoredVote | undefined,
  now: Date,
  channel: string | undefined,
  onBehalfOf: string | undefined,
): Promise<void> {
  const data = {
    handle,
    resolution: request.resolution,
    value: request.value === undefined ? null : JSON.stringify(request.value),
    comment: request.comment ?? null,
    forHandle: onBehalfOf ?? null,
    at: now,
  };
  await tx.approvalVote.upsert({
    where: { messageId_membershipId: { messageId: row.id, membershipId } },
    create: { messageId: row.id, membershipId, ...data },
    update: data,
  });
  await writeAudit(tx, {
    accountId: row.accountId,
    messageId: row.id,
    actor: `human:${handle}`,
    event: replaced ? AUDIT_EVENT.approvalReplaced : AUDIT_EVENT.approvalRecorded,
    detail: {
      answer: voteKey(request),
      ...(replaced ? { replaced: keyOfStored(replaced) } : {}),
      ...(channel ? { channel } : {}),
      ...(onBehalfOf ? { for: onBehalfOf } : {}),
    } as Prisma.InputJsonValue,
    at: now,
  });
}

/**
 * Withdraws the person's own vote on an open ask (before it completes), audited; a person without a
 * vote changes nothing. Any seat may withdraw its vote, eligible or not any more. Returns the count
 * of the answer they had voted for (`have` 0 when there was none), `409` once the ask is settled.
 */
export async function withdrawVote(userId: string, id: string): Promise<PendingApproval> {
  const row = await db().message.findUnique({
    where: { id },
    select: { id: true, accountId: true, agentRowId: true, routing: true },
  });
  const seat = row
    ? await db().membership.findFirst({
        where: { accountId: row.accountId, userId },
        select: { id: true, handle: true },
      })
    : null;
  if (!row || !seat) throw new HubError("not_found", "no such message");
  const routing = routingOf(row);
  if (!routing?.quorum)
    throw new HubError("invalid_field", "this message counts no approvals: there is no vote to withdraw");
  const quorum = routing.quorum;
  const now = clock.now();
  const result = await db().$transaction(async (tx) => {
    const locked = await lockMessageForVote(tx, id);
    if (locked === null || locked.status !== "open") return null;
    const mine = await tx.approvalVote.findUnique({
      where: { messageId_membershipId: { messageId: id, membershipId: seat.id } },
      select: STORED_VOTE,
    });
    if (mine) {
      await tx.approvalVote.delete({ where: { messageId_membershipId: { messageId: id, membershipId: seat.id } } });
      await writeAudit(tx, {
        accountId: row.accountId,
        messageId: id,
        actor: `human:${seat.handle}`,
        event: AUDIT_EVENT.approvalWithdrawn,
        detail: { answer: keyOfStored(mine) },
        at: now,
      });
      await publishInboxChange(tx, row.accountId, id);
    }
    const rest: StoredVote[] = await tx.approvalVote.findMany({
      where: { messageId: id },
      select: STORED_VOTE,
    });
    const voters = await votersNow(
      tx,
      row,
      routing,
      rest.map((v) => v.membershipId),
      forOf(rest),
    );
    const have = mine ? (tally(quorum, counted(rest, voters)).have[keyOfStored(mine)] ?? 0) : 0;
    return { have, withdrew: mine !== null };
  });
  if (result === null) {
    const settled = await db().message.findUniqueOrThrow({ where: { id }, select: { id: true, status: true } });
    throw terminalConflict(settled);
  }
  if (result.withdrew) await afterVote(id, seat.handle, now);
  return { id, status: "open", approvals: { have: result.have, need: quorum.approvals } };
}
