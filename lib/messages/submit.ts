/**
 * §8.1 submit. The checks run in the order the issue pins (docs/ARCHITECTURE.md): credential and
 * `agent.id` match → major version → canonical minor and schema → push parity → idempotency lookup
 * → time-dependent and semantic checks → create. The common case — valid, and a new key or none —
 * commits in one SQL statement (submit.sql.ts); everything else (a replay, a conflict, a
 * key to reclaim, a check that fails) goes through the transaction below, where lookup and create
 * share one transaction, so a rejected submit changes nothing and concurrent same-key submits
 * create exactly one message.
 */
import { Prisma } from "../generated/prisma/client";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { metrics } from "../metrics/registry";
import { inboundLimits, limits } from "../env";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { dateTimeToMillis } from "@ma2h/protocol/formats";
import { jcs, sha256Hex } from "@ma2h/protocol/jcs";
import { assertAskAnswerable } from "@ma2h/protocol/ask-contract";
import { callbackOf, parseMessage, type Message } from "@ma2h/protocol/message";
import { checkSubmitSemantics } from "@ma2h/protocol/rules";
import type { SubmitAck } from "@ma2h/protocol/submit-ack";
import { assertPushParity, assertSupportedMajor } from "@ma2h/protocol/versions";
import { assertCallbackAllowed } from "../principals/bindings";
import type { AgentPrincipal } from "../principals/types";
import { publishInboxChange } from "../pubsub/inbox";
import { mailboxWakeKey, publishTerminal } from "../pubsub/terminal";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { presentSession } from "../sessions/lease";
import {
  assertSenderIdAddressable,
  attestedFrom,
  deliveredMessageForm,
  type ResolvedDestination,
  resolveDestination,
} from "./addressing";
import { scheduleExpiry } from "../queue/enqueue";
import type { Routing } from "../policies/evaluate";
import { routeAtSubmit } from "../policies/routing";
import { afterTerminal } from "./after-terminal";
import { applyOwedTerminalInTx } from "./undeliverable";
import type { CommitResult } from "./lifecycle";
import { assertContextLimits, assertOpenCapacity, inboxFull } from "./limits";
import { listingColumns } from "./listing";
import { owningStatus, submitAck } from "./serialize";
import { lockMailboxForWriter, type NewMessageRow, notifyFanoutOnCommit, runSubmitStatement } from "./submit.sql";

export interface SubmitResult {
  ack: SubmitAck;
  replayed: boolean;
  /** Set for a new ask/task that carries `expires_at` (its expiry is scheduled on commit). */
  expiresAt: Date | null;
}

/** §8.1: the identical-payload comparison excludes `agent.run_id` and `agent.session`. */
export function payloadHash(body: Record<string, unknown>): string {
  const agent = { ...(body.agent as Record<string, unknown>) };
  delete agent.run_id;
  delete agent.session;
  return sha256Hex(jcs({ ...body, agent }));
}

/**
 * What we store as the envelope: the body as received, minus `state` (kept apart as opaque text,
 * §9.3). Everything else stays verbatim — including any Hub-owned keys (`id`, `status`, `response`,
 * `delivery`, `mailbox`) the agent put there — so the stored envelope is exactly what the §8.1
 * payload hash covers; the GET body (serialize.ts `messageBody`) is what overrides those keys.
 */
function storedEnvelope(body: Record<string, unknown>): string {
  const { state: _state, ...rest } = body;
  return JSON.stringify(rest);
}

export async function submitMessage(principal: AgentPrincipal, body: Record<string, unknown>): Promise<SubmitResult> {
  const claimed = (body.agent as { id?: unknown } | undefined)?.id;
  if (typeof claimed === "string" && claimed !== principal.agentId) {
    throw new HubError("agent_id_mismatch", "agent.id does not match the credential");
  }
  assertSupportedMajor(body);
  assertSenderIdAddressable(body);
  assertAskAnswerable(body); // §5.2 (v0.6) corrections: 422 at every minor, before the schema's 400
  const message = parseMessage(body);
  if (message.agent.id !== principal.agentId) {
    throw new HubError("agent_id_mismatch", "agent.id does not match the credential");
  }
  assertPushParity(message);
  const hash = payloadHash(body);

  const created = await submitInOneStatement(principal, message, body, hash);
  if (created) return created;

  // §4.1: the session the submit names must be the caller's own live one (422 / 410); naming it
  // renews its lease (§16.2). Presented before the transaction (it reads and writes on its own
  // connection, which a transaction waiting on it must not hold), but its refusal is raised only
  // after the idempotency lookup: a replay still gets its original ack (§8.1).
  let sessionRefusal: unknown = null;
  if (message.agent.session !== undefined) {
    try {
      await presentSession(principal, message.agent.session, { touchpoint: "submit", renew: true });
    } catch (err) {
      sessionRefusal = err;
    }
  }
  try {
    const outcome = await db().$transaction(async (tx) => {
      const now = clock.now();
      if (message.idempotency_key !== undefined) {
        const replay = await claimIdempotencyKey(tx, principal, message.idempotency_key, hash, now);
        if (replay) return replay;
      }
      if (sessionRefusal !== null) throw sessionRefusal;
      checkSubmitSemantics(message, now);
      assertContextLimits(message, limits());
      await assertCallbackAllowed(principal.agentRowId, callbackOf(message), tx);
      // §8.6 / choice A30: inbox_depth bounds the human inbox; addressed mail the mailbox depth.
      if (message.type !== "notify" && message.to === undefined)
        await assertOpenCapacity(tx, principal.agentRowId, limits().inboxDepth);
      // §4 / choice A28: opt-in, allowlist and destination are checked after the semantic checks.
      const destination = await resolveDestination(tx, principal, message, now);
      // The account's approval policy, last of the checks: who may answer, recorded with the message.
      const routing = await routeAtSubmit(principal.accountId, principal.agentId, message, tx);
      return createMessage(tx, principal, message, body, hash, now, destination, routing);
    });
    if ("result" in outcome) return afterCreate(outcome.result, message.type);
    await afterTerminal(outcome.expiry);
    return { ack: outcome.ack, replayed: true, expiresAt: null };
  } catch (err) {
    // Two racing first submits with one key: the loser's insert hit the unique key; replay it.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002" && message.idempotency_key) {
      const replay = await db().$transaction((tx) =>
        claimIdempotencyKey(tx, principal, message.idempotency_key as string, hash, clock.now()),
      );
      if (replay) {
        await afterTerminal(replay.expiry);
        return { ack: replay.ack, replayed: true, expiresAt: null };
      }
    }
    throw err;
  }
}

/**
 * What follows the commit of a new message. Notifications need nothing here: the outbox row
 * committed with the message, and the worker is woken by the commit's NOTIFY (lib/jobs/wake.ts).
 */
async function afterCreate(result: SubmitResult, verb: Message["type"]): Promise<SubmitResult> {
  // §7: the expiry job is scheduled only once the message exists for every reader.
  if (result.expiresAt) await scheduleExpiry(result.ack.id, result.expiresAt);
  metrics().submits.inc({ verb });
  return result;
}

/**
 * The common case — a valid submit whose idempotency key (if any) is new — in one round trip
 * (submit.sql.ts). Returns null when the transaction above must decide instead: a check failed
 * (it throws the same error after the idempotency lookup that §8.1 puts first), or the statement wrote
 * nothing while a key was present (a replay, a conflict, a key to reclaim — or a full inbox, which a
 * replay still beats). Without a key, a full inbox is refused here.
 */
async function submitInOneStatement(
  principal: AgentPrincipal,
  message: Message,
  body: Record<string, unknown>,
  hash: string,
): Promise<SubmitResult | null> {
  // A session-bearing submit checks its session after the idempotency lookup, and an addressed one
  // its destination (and writes the mailbox entry with the message): the transaction's path.
  if (message.agent.session !== undefined || message.to !== undefined) return null;
  const now = clock.now();
  try {
    checkSubmitSemantics(message, now);
    assertContextLimits(message, limits());
  } catch {
    return null;
  }
  // Read before the statement: a binding revoked in between is caught again before every delivery
  // attempt (push-attempt.ts), as it is for one revoked after the submit.
  await assertCallbackAllowed(principal.agentRowId, callbackOf(message));
  // The approval policy (lib/policies/routing.ts). A refusal goes to the transaction, which raises
  // it after the idempotency lookup (a replay still gets its original ack, §8.1); a policy applied
  // between this read and the statement is one applied after the submit.
  let routing: Routing | null;
  try {
    routing = await routeAtSubmit(principal.accountId, principal.agentId, message);
  } catch {
    return null;
  }
  const row = newMessageRow(principal, message, body, now, routing);
  const depth = message.type === "notify" ? null : limits().inboxDepth;
  const outcome = await runSubmitStatement({
    row,
    payloadHash: hash,
    actor: `agent:${principal.agentId}`,
    inboxDepth: depth,
  });
  if (outcome.created) {
    return afterCreate(
      { ack: submitAck({ id: row.id, status: row.status }), replayed: false, expiresAt: row.expiresAt },
      message.type,
    );
  }
  if (row.idempotencyKey !== null) return null;
  throw inboxFull(outcome.open ?? 0, depth ?? 0);
}

/** The `messages` row a new submit creates. */
function newMessageRow(
  principal: AgentPrincipal,
  message: Message,
  body: Record<string, unknown>,
  now: Date,
  routing: Routing | null,
): NewMessageRow {
  // §5.1: a human-inbox notify is delivered on acceptance; an addressed one is `queued` — its
  // lifecycle is the mailbox track, which its GET and replays read from the entry (serialize.ts).
  const status = message.type !== "notify" ? "open" : message.to === undefined ? "delivered" : "queued";
  // Parsed as RFC 3339 (offsets and all), floored to the millisecond the database keeps.
  const expiresMs = message.type !== "notify" && message.expires_at ? dateTimeToMillis(message.expires_at) : null;
  const callback = callbackOf(message);
  return {
    id: mintId("message"),
    accountId: principal.accountId,
    agentRowId: principal.agentRowId,
    type: message.type,
    status,
    ma2hVersion: message.ma2h_version,
    envelope: storedEnvelope(body),
    state: body.state === undefined ? null : JSON.stringify(body.state),
    title: message.title,
    priority: message.priority ?? "normal",
    ...listingColumns(message),
    sensitive: message.sensitive === true,
    idempotencyKey: message.idempotency_key ?? null,
    expiresAt: expiresMs === null ? null : new Date(Math.floor(expiresMs)),
    callbackUrl: callback?.mode === "push" ? (callback.url ?? null) : null,
    createdAt: now,
    // A notify's retention runs from acceptance (§8.2), addressed or not.
    terminalAt: message.type === "notify" ? now : null,
    routing: routing === null ? null : JSON.stringify(routing),
  };
}

interface Replay {
  ack: SubmitAck;
  /** An expiry this replay applied to an overdue original, to hand to `afterTerminal`. */
  expiry: CommitResult;
}

const keyConflict = () =>
  new HubError("idempotency_conflict", "idempotency_key was already used with a different payload");

/**
 * §8.1 idempotency on (agent, key), run-independent. An identical replay returns the original ack
 * with the current status (`410 gone` once the message was purged); a differing payload is a 409,
 * or a first submit when the original was purged and the record is older than the TTL.
 */
async function claimIdempotencyKey(
  tx: Tx,
  principal: AgentPrincipal,
  key: string,
  hash: string,
  now: Date,
): Promise<Replay | null> {
  const record = await tx.idempotencyRecord.findUnique({
    where: { agentRowId_idempotencyKey: { agentRowId: principal.agentRowId, idempotencyKey: key } },
  });
  if (!record) return null;
  const ttlMs = limits().idempotencyTtlSeconds * 1000;
  const original = await tx.message.findUnique({
    where: { id: record.messageId },
    select: { id: true, status: true, type: true, destination: true },
  });
  if (!original) {
    // Purged after retention (§8.2). The identical envelope is a retry of a question already asked
    // and closed: it reads the pull's `410`, however old the key, never a second human decision.
    if (record.payloadHash === hash) {
      throw new HubError("gone", "the message for this idempotency_key was deleted after retention");
    }
    // Another payload: past the TTL the key is free again (§8.1 dedups for at least the TTL).
    if (now.getTime() - record.createdAt.getTime() > ttlMs) {
      await tx.idempotencyRecord.delete({
        where: { agentRowId_idempotencyKey: { agentRowId: principal.agentRowId, idempotencyKey: key } },
      });
      return null;
    }
    throw keyConflict();
  }
  if (record.payloadHash !== hash) throw keyConflict();
  // The current status of the owning track (§8.1): an overdue open ask reads `expired`, never
  // `open` (§7), an undeliverable addressed one `cancelled` / `dismissed`; an addressed notify reads
  // its mailbox track; with the stored `destination` snapshot.
  const expiry = await applyOwedTerminalInTx(tx, original.id, now);
  const status = expiry.won && expiry.resolution ? expiry.resolution : await owningStatus(tx, original);
  return { ack: submitAck({ ...original, status }), expiry };
}

async function createMessage(
  tx: Tx,
  principal: AgentPrincipal,
  message: Message,
  body: Record<string, unknown>,
  hash: string,
  now: Date,
  destination: ResolvedDestination | null,
  routing: Routing | null,
): Promise<{ result: SubmitResult }> {
  const { id, status, expiresAt, ...rest } = newMessageRow(principal, message, body, now, routing);
  const addressed =
    destination === null
      ? {}
      : {
          toAddress: message.to,
          toAgentRowId: destination.agentRowId,
          destination: JSON.stringify(destination.snapshot),
        };
  const row = await tx.message.create({
    data: {
      id,
      status,
      expiresAt,
      ...rest,
      ...addressed,
      submitSession: message.agent.session ?? null,
      statusChangedAt: now,
    },
    select: { id: true, status: true, destination: true },
  });
  if (destination !== null) await parkMessageEntry(tx, principal, message, body, id, destination, now);
  if (message.idempotency_key !== undefined) {
    await tx.idempotencyRecord.create({
      data: {
        agentRowId: principal.agentRowId,
        idempotencyKey: message.idempotency_key,
        payloadHash: hash,
        messageId: id,
        createdAt: now,
      },
    });
  }
  // Notifications (docs/notifications.md): the obligation to tell people, as a row committed
  // with the message; a worker fans it out — for an ask/task to its resolvers, for a notify to
  // those who opted in (lib/notifications/recipients.ts, preferences.ts). Addressed traffic is
  // between agents: it never notifies people, who watch it in the Agent traffic view.
  if (destination === null) await tx.notificationOutbox.create({ data: { messageId: id, createdAt: now } });
  await writeAudit(tx, {
    accountId: principal.accountId,
    messageId: id,
    actor: `agent:${principal.agentId}`,
    event: AUDIT_EVENT.messageSubmitted,
    detail: destination === null ? { type: message.type } : { type: message.type, to: message.to },
    at: now,
  });
  await publishInboxChange(tx, principal.accountId, id); // the inbox (and the traffic view) update live
  if (destination === null) await notifyFanoutOnCommit(tx, id); // lib/jobs/wake.ts
  return { result: { ack: submitAck(row), replayed: false, expiresAt } };
}

/**
 * §8.7.1: an addressed message parks in the destination's mailbox as a `message` entry — same id,
 * the attested `from`, the delivered form — in the submit's own transaction, so the message and its
 * delivery obligation exist together or not at all (§3.1). The mailbox depth bounds addressed mail
 * as it bounds directives (§8.6), under the same per-mailbox lock authors take; and one sender's
 * share of it is bounded too (`inbound.maxPerSender`), so a peer cannot fill another agent's
 * mailbox for the whole retention window and crowd out everyone else's mail.
 */
async function parkMessageEntry(
  tx: Tx,
  principal: AgentPrincipal,
  message: Message,
  body: Record<string, unknown>,
  id: string,
  destination: ResolvedDestination,
  now: Date,
): Promise<void> {
  const l = inboundLimits();
  await lockMailboxForWriter(tx, destination.agentRowId);
  const pending = await tx.mailboxEntry.count({
    where: { agentRowId: destination.agentRowId, state: { in: ["queued", "delivered"] } },
  });
  if (pending >= l.mailboxDepth) {
    throw new HubError("rate_limited", `the destination's mailbox already holds ${pending} un-acked entries`, {
      retryAfterSeconds: 60,
    });
  }
  const mine = await tx.mailboxEntry.count({
    where: {
      agentRowId: destination.agentRowId,
      kind: ENTRY_KIND.message,
      state: { in: ["queued", "delivered"] },
      senderRowId: principal.agentRowId,
    },
  });
  if (mine >= l.maxPerSender) {
    throw new HubError(
      "rate_limited",
      `the destination's mailbox already holds ${mine} un-acked messages from this agent (max_pending_per_sender)`,
      { retryAfterSeconds: 60 },
    );
  }
  const from = attestedFrom(principal, message);
  const to = message.to as string;
  const expiresMs = message.expires_at === undefined ? null : dateTimeToMillis(message.expires_at);
  await tx.mailboxEntry.create({
    data: {
      id,
      accountId: principal.accountId,
      agentRowId: destination.agentRowId,
      kind: ENTRY_KIND.message,
      toSession: destination.sessionId,
      fromActor: from,
      senderRowId: principal.agentRowId,
      ma2hVersion: message.ma2h_version,
      title: message.title,
      priority: message.priority ?? "normal",
      content: JSON.stringify(deliveredMessageForm(body, id, from, to)),
      sensitive: message.sensitive === true,
      // §9.8: not delivered past its `expires_at` (drain.ts); the track ends at the retention
      // horizon (lib/mailbox/expiry.ts) — `expired` if never drained.
      expiresAt: expiresMs === null ? null : new Date(Math.floor(expiresMs)),
      dropAt: new Date(now.getTime() + l.retentionDays * 86_400_000),
      visibleAt: now,
      createdAt: now,
    },
  });
  await publishTerminal(tx, mailboxWakeKey(destination.agentRowId)); // wake parked drains and streams
}
