/**
 * A person's vote on an ask a quorum rule routed (docs/policies.md "Quorum"). Every resolve of such
 * an ask by a person comes here from `resolveMessage` (lib/messages/resolve.ts), whatever the
 * channel: one statement reads the ask's votes and its voters as they are now, at the ask's row
 * version (started with the person's authorization, `openVote`); they are recounted with the new vote; one statement writes the vote with its audit
 * event — and, when one answer has its approvals and every `require_from` group, or the vote is a
 * decline or a veto, the ask's terminal through the same §7 compare-and-set as any answer
 * (lib/messages/lifecycle.ts), attested to the person whose vote completed it and carrying only
 * their comment. The write matches only the version read: a vote that another committed since
 * writes nothing and is counted again (./approvals.sql.ts). Otherwise the ask stays `open` (the agent
 * sees nothing until the Response) and the caller gets a `PendingApproval`.
 */
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
import { votersNow, votersOf, type VoterNow } from "../approvals/eligibility";
import type { PendingApproval } from "../approvals/pending";
import { type CountedVote, groupsStillNeeded, tally, voteKey } from "../approvals/tally";
import {
  completeVote,
  lockMessageForVote,
  lockMessageForWithdrawal,
  readVoteState,
  type StoredVote,
  type VoteState,
  type VoteWrite,
  writeVote,
} from "./approvals.sql";

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
function counted(votes: readonly StoredVote[], voters: ReadonlyMap<string, VoterNow>): CountedVote[] {
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
  | { kind: "terminal"; status: string }
  | { kind: "owed"; commit: CommitResult }
  | { kind: "done"; commit: CommitResult }
  | { kind: "pending"; have: number; need: number; recorded: boolean; posted?: boolean };

/**
 * A person's vote as it starts: the ask, its recorded routing, the person, the time it is counted
 * at, and the read of its votes — started before the person's authorization completes, so the two
 * reads are one round trip (`openVote`).
 */
export interface OpenedVote {
  row: MessageRow;
  routing: Routing & { quorum: Quorum };
  userId: string;
  now: Date;
  read: Promise<VoteState | null>;
}

/**
 * Starts a person's vote on an ask a quorum rule routed: its read runs while the caller authorizes
 * them (lib/messages/resolve.ts); `castVote` takes it from there. Unused when the authorization
 * refuses: its failure, if any, is then nobody's.
 */
export function openVote(row: MessageRow, routing: Routing & { quorum: Quorum }, userId: string): OpenedVote {
  const now = clock.now();
  const read = readVoteState(voteRead(row, routing, userId, now));
  read.catch(() => {});
  return { row, routing, userId, now, read };
}

function voteRead(row: MessageRow, routing: Routing & { quorum: Quorum }, userId: string, now: Date) {
  return {
    messageId: row.id,
    accountId: row.accountId,
    userId,
    groups: routing.quorum.require_from.map((g) => g.group),
    sponsors: routing.quorum.exclude_sponsors !== null,
    now,
  };
}

/** One vote as the caller cast it. */
interface Ballot extends Omit<OpenedVote, "read"> {
  envelope: Message;
  request: ResolveRequest;
  actor: string;
  handle: string;
  key: string;
  channel: string | undefined;
  onBehalfOf: string | undefined;
}

/** How many times a vote is counted again when the row changed under it, before it is taken under the row's lock. */
const UNLOCKED_ATTEMPTS = 3;

/**
 * Records `actor`'s vote (already authorized by `authorizeResolver`, and its body checked by
 * `checkResolution`) and completes the ask when it should. Throws `403 not_authorized` when the
 * person is no longer eligible or their vote could change nothing, `422 invalid_field` for a
 * free-form answer under a quorum of more than one, `409 already_terminal` once the ask is settled.
 */
export async function castVote(
  opened: OpenedVote,
  envelope: Message,
  request: ResolveRequest,
  actor: string,
  via?: ResolveChannel,
  onBehalfOf?: string,
): Promise<ResolveResult | PendingApproval> {
  const { row, routing, now } = opened;
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
  const ballot: Ballot = {
    row,
    routing,
    userId: opened.userId,
    now,
    envelope,
    request,
    actor,
    handle,
    key: voteKey(request),
    channel: via?.channel,
    onBehalfOf,
  };
  // Two statements on the pool, no transaction; a vote that keeps losing to others' is taken under
  // the row's lock, where it cannot lose — as is one whose channel writes with it (an email link's
  // token: `withResolution` runs in the vote's transaction once the vote is recorded).
  let outcome: Outcome | null = null;
  const withResolution = via?.withResolution;
  for (let attempt = 0; !withResolution && outcome === null && attempt < UNLOCKED_ATTEMPTS; attempt++)
    outcome = await countAndWrite(ballot, undefined, attempt === 0 ? opened.read : undefined);
  outcome ??= await db().$transaction(async (tx): Promise<Outcome> => {
    await lockMessageForVote(tx, row.id);
    let locked: Outcome | null = null;
    for (let attempt = 0; locked === null && attempt < UNLOCKED_ATTEMPTS; attempt++)
      locked = await countAndWrite(ballot, tx);
    if (locked === null) throw new Error("a quorum vote under its ask's row lock found the row changed");
    if ((locked.kind === "done" || (locked.kind === "pending" && locked.recorded)) && withResolution)
      await withResolution(tx, now);
    return locked;
  });
  if (outcome.kind === "pending") {
    await afterVote(row.id, handle, now, outcome.posted);
    return { id: row.id, status: "open", approvals: { have: outcome.have, need: outcome.need } };
  }
  if (outcome.kind === "terminal") throw terminalConflict({ id: row.id, status: outcome.status });
  await afterTerminal(outcome.commit);
  if (outcome.kind === "done" && outcome.commit.resolutionId)
    return { id: row.id, status: request.resolution, resolution_id: outcome.commit.resolutionId };
  const settled = await db().message.findUniqueOrThrow({ where: { id: row.id }, select: { id: true, status: true } });
  throw terminalConflict(settled);
}

/**
 * Reads the ask's votes and voters, counts the ballot with them, and writes it — on the pool, or in
 * `tx` under the row's lock. Null when the row changed since the read (another vote, a hand-over):
 * nothing was written, and the ballot is counted again.
 */
async function countAndWrite(b: Ballot, tx?: Tx, read?: Promise<VoteState | null>): Promise<Outcome | null> {
  const { row, envelope, request, handle, key, now, onBehalfOf } = b;
  const state = await (read ?? readVoteState(voteRead(row, b.routing, b.userId, now), tx));
  if (state === null) throw new HubError("not_found", "no such message");
  if (state.status !== "open") return { kind: "terminal", status: state.status };
  // §7: an overdue ask is expired by this call, never voted on (an addressed one whose delivery ended
  // undeliverable is auto-resolved).
  if (!state.answerable)
    return {
      kind: "owed",
      commit: tx
        ? await applyOwedTerminalInTx(tx, row.id, now)
        : await db().$transaction((t) => applyOwedTerminalInTx(t, row.id, now)),
    };
  // The routing as it is now: a hand-over since the ask was read widens who is asked.
  const routing = state.routing === row.routing ? b.routing : (routingOf(state) ?? b.routing);
  const quorum = routing.quorum ?? b.routing.quorum;
  // The seat the authorization found (a handle renamed since is no seat of this actor's).
  const seat = state.seats.find((s) => s.id === state.voterId);
  if (seat === undefined || seat.handle !== handle) throw new HubError("not_found", "no such message");
  const existing = state.votes;
  const delegators = forOf(existing).set(seat.id, onBehalfOf ?? null);
  const [voters = new Map<string, VoterNow>()] = votersOf(
    [
      {
        message: row,
        routing,
        membershipIds: [...existing.map((v) => v.membershipId), seat.id],
        onBehalfOf: delegators,
      },
    ],
    state.seats,
    new Map([[row.agentRowId, state.sponsors]]),
  );
  const me = voters.get(seat.id);
  if (me === undefined || me.ineligible !== null)
    throw new HubError("not_authorized", me?.ineligible ?? "you may not resolve this message");
  const mine = existing.find((v) => v.membershipId === seat.id);
  const before = counted(existing, voters);
  // The same vote again: nothing new is recorded, and the answer is the same.
  if (mine !== undefined && keyOfStored(mine) === key && mine.forHandle === (onBehalfOf ?? null))
    return { kind: "pending", have: tally(quorum, before).have[key] ?? 0, need: quorum.approvals, recorded: false };
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
  const value = request.value === undefined ? null : JSON.stringify(request.value);
  const vote: VoteWrite = {
    messageId: row.id,
    version: state.version,
    membershipId: seat.id,
    handle,
    resolution: request.resolution,
    value,
    comment: request.comment ?? null,
    forHandle: onBehalfOf ?? null,
    // With the channel it came by (`email`, `slack`, the inbox's; absent over `/v1`), as an answer's.
    event: mine ? AUDIT_EVENT.approvalReplaced : AUDIT_EVENT.approvalRecorded,
    detail: {
      answer: key,
      ...(mine ? { replaced: keyOfStored(mine) } : {}),
      ...(b.channel ? { channel: b.channel } : {}),
      ...(onBehalfOf ? { for: onBehalfOf } : {}),
    },
    now,
  };
  const after = counted(
    [
      ...existing.filter((v) => v.membershipId !== seat.id),
      { membershipId: seat.id, handle, resolution: request.resolution, value, forHandle: onBehalfOf ?? null },
    ],
    voters,
  );
  const count = tally(quorum, after);
  if (ends || count.complete === key) {
    const outcome = { ...resolvedOutcome(envelope, request, b.actor, now), channel: b.channel, onBehalfOf };
    const commit = await commitTerminal(tx ?? null, row, envelope, "resolve", outcome, now, (t) =>
      completeVote.sql(t, vote),
    );
    return commit.won ? { kind: "done", commit } : null;
  }
  // Every open view of the item recounts: the statement's NOTIFY.
  const written = await writeVote(vote, tx);
  return written
    ? { kind: "pending", have: count.have[key] ?? 0, need: quorum.approvals, recorded: true, posted: written.posted }
    : null;
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
    // The row's version changes with the withdrawal: a vote counted with this one is counted again.
    const locked = await lockMessageForWithdrawal(tx, id);
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
