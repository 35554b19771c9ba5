/**
 * §13 authoring: an operator of the agent's account writes a directive into that agent's durable
 * mailbox. `from` is attested from the operator's seat (`human:<handle>`, §9.1), never the body;
 * the id is Hub-minted (`dir_`); the destination is validated now (§13.2) and the mailbox depth
 * bounded (429). The row, the audit event and the wake-ups commit together.
 */
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { inboundLimits, limits } from "../env";
import { assertContextLimits } from "../messages/limits";
import { seatsIn } from "../principals/seats";
import { RESOLVING_ROLES } from "../principals/types";
import { publishInboxChange } from "../pubsub/inbox";
import { mailboxWakeKey, publishTerminal } from "../pubsub/terminal";
import { lockDestinationSession } from "../messages/addressing.sql";
import { lockMailboxForWriter } from "../messages/submit.sql";
import { directiveContent, directiveRequestSchema } from "@ma2h/protocol/directive";
import { HubError } from "@ma2h/protocol/errors";
import { dateTimeToMillis } from "@ma2h/protocol/formats";
import { mintId } from "@ma2h/protocol/ids";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { parseWire } from "@ma2h/protocol/wire";
import { DIRECTIVE_KIND, directiveBody, LIVE_STATES } from "./record";

/** The authenticated operator, optionally pinned to one account (the inbox page they are on). */
export interface DirectiveAuthor {
  userId: string;
  accountId?: string;
}

/** Who may author: the roles that may resolve (owner, admin, member); a viewer only reads (§9.1). */
const AUTHORING = RESOLVING_ROLES as readonly string[];

async function destinationFor(author: DirectiveAuthor, agentId: string) {
  const seats = await seatsIn(author.userId, author.accountId);
  const authoring = seats.filter((s) => AUTHORING.includes(s.role));
  const agents = await db().agent.findMany({
    where: { agentId, accountId: { in: seats.map((s) => s.accountId) } },
    select: { id: true, agentId: true, accountId: true },
  });
  const reachable = agents.filter((a) => authoring.some((s) => s.accountId === a.accountId));
  if (reachable.length === 1) {
    const agent = reachable[0]!;
    return { agent, seat: authoring.find((s) => s.accountId === agent.accountId)! };
  }
  if (reachable.length > 1) {
    throw new HubError(
      "invalid_field",
      "that agent id exists in several of your accounts; send from the account's inbox page",
    );
  }
  // A viewer reads but never instructs; someone who may author nowhere is refused the same way.
  if (agents.length > 0 || authoring.length === 0) {
    throw new HubError("not_authorized", "your role may not send directives");
  }
  // §13.2: unknown — and another account's agent is indistinguishable from unknown.
  throw new HubError("unknown_destination", "no such agent");
}

/**
 * §13.2 a session-addressed directive: the session must be one of this agent's and live — unknown
 * (or another agent's, another account's) → `422 unknown_destination`; ended → `410
 * destination_gone`, whoever ended it (§16.3). The row is share-locked until commit, so a close or
 * expiry of the session waits for this directive and then bounces it (lib/sessions/end.ts).
 */
async function assertSessionLive(tx: Tx, agentRowId: string, sessionId: string, now: Date): Promise<void> {
  const s = await lockDestinationSession(tx, agentRowId, sessionId);
  if (!s) throw new HubError("unknown_destination", "no such session");
  if (s.state !== "active" || s.expires_at <= now)
    throw new HubError("destination_gone", `session ${sessionId} has ended`);
}

export async function authorDirective(author: DirectiveAuthor, input: unknown) {
  const request = parseWire(directiveRequestSchema, input, "validation_error");
  const now = clock.now();
  const expiresMs = request.expires_at === undefined ? null : dateTimeToMillis(request.expires_at);
  if (expiresMs !== null && expiresMs <= now.getTime()) {
    throw new HubError("invalid_field", "expires_at must be in the future (§13.1)");
  }
  assertContextLimits(request, limits());
  const [agentId, session] = request.to.slice("agent:".length).split("#", 2) as [string, string?];
  const { agent, seat } = await destinationFor(author, agentId);

  const l = inboundLimits();
  // §13.3: kept deliverable until its `expires_at`, or — only when absent — the retention horizon.
  // An `expires_at` beyond `inbound.retention_days` wins; retention never cuts it short.
  const dropAt = new Date(expiresMs ?? now.getTime() + l.retentionDays * 86_400_000);
  const content = directiveContent(request);
  const id = mintId("directive");

  const row = await db().$transaction(async (tx) => {
    // One author at a time per mailbox, so the depth bound cannot be overshot by a race.
    await lockMailboxForWriter(tx, agent.id);
    if (session !== undefined) await assertSessionLive(tx, agent.id, session, now);
    const pending = await tx.mailboxEntry.count({ where: { agentRowId: agent.id, state: { in: [...LIVE_STATES] } } });
    if (pending >= l.mailboxDepth) {
      throw new HubError("rate_limited", `this agent's mailbox already holds ${pending} un-acked directives`, {
        retryAfterSeconds: 60,
      });
    }
    const created = await tx.mailboxEntry.create({
      data: {
        id,
        accountId: agent.accountId,
        agentRowId: agent.id,
        kind: DIRECTIVE_KIND,
        fromActor: `human:${seat.handle}`,
        authorUserId: author.userId,
        ma2hVersion: HUB_VERSION,
        title: request.title,
        priority: request.priority ?? "normal",
        content: JSON.stringify(content),
        sensitive: request.sensitive ?? false,
        expiresAt: expiresMs === null ? null : new Date(expiresMs),
        dropAt,
        toSession: session ?? null,
        visibleAt: now,
        createdAt: now,
      },
      include: { agent: { select: { agentId: true } } },
    });
    await writeAudit(tx, {
      accountId: agent.accountId,
      actor: `human:${seat.handle}`,
      event: AUDIT_EVENT.directiveCreated,
      detail: { directive_id: id, to: request.to },
    });
    await publishTerminal(tx, mailboxWakeKey(agent.id)); // wake parked drains
    await publishInboxChange(tx, agent.accountId, id); // and the inbox
    return created;
  });
  return directiveBody(row);
}
