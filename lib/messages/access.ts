/**
 * Who may see and who may resolve a message (§9.1). A caller with no view of a message gets a 404
 * identical to an unknown id's; a purged message answers 410 only to its submitter.
 */
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { seatFor } from "../principals/seats";
import { RESOLVING_ROLES, type AgentPrincipal, type Seat } from "../principals/types";
import type { Message as MessageRow } from "../generated/prisma/client";
import { allowedResolversOf, envelopeOf, type MessageWithResolution } from "./record";
import { readMessageRow, readMessageRowBatched } from "./row-read";
import type { Routing } from "../policies/evaluate";
import { routingOf } from "../policies/routing";

/**
 * Who resolves. An agent may present its own live session (§8.8 `?session=`, already checked by
 * lib/sessions/lease.ts): its attested actor is then session-qualified.
 */
export type Resolver =
  | { kind: "agent"; principal: AgentPrincipal; sessionId?: string }
  | { kind: "human"; userId: string };

/** The attested actor (§9.1), and whom a person answers for when a delegation let them (docs/policies.md). */
export interface AttestedResolver {
  actor: string;
  onBehalfOf?: string;
}

export function notFound(): HubError {
  return new HubError("not_found", "no such message");
}

/** The row with its resolution: one statement on the pool (row-read.ts). */
export function loadMessage(id: string): Promise<MessageWithResolution | null> {
  return readMessageRow(id);
}

/** The same, read in one statement with the other rows asked for this turn (woken long-polls). */
export function loadMessageBatched(id: string): Promise<MessageWithResolution | null> {
  return readMessageRowBatched(id);
}

/** §8.2/§8.4/§9.1: poll and cancel are bound to the submitting principal. */
export async function loadForSubmitter(
  principal: AgentPrincipal,
  id: string,
  load: (id: string) => Promise<MessageWithResolution | null> = loadMessage,
): Promise<MessageWithResolution> {
  const row = await load(id);
  if (row && row.agentRowId === principal.agentRowId) return row;
  if (!row) {
    const tomb = await db().messageTombstone.findUnique({ where: { id } });
    if (tomb && tomb.agentRowId === principal.agentRowId) {
      throw new HubError("gone", "message was deleted after its retention period");
    }
  }
  throw notFound();
}

/**
 * §9.1 resolver authorization (docs/decisions/protocol.md "Default resolvers"):
 * - absent `allowed_resolvers`: the submitting agent, plus the account's humans who may resolve —
 *   for an addressed message (§4 `to`) the addressee only, people and submitter excluded;
 * - an explicit list replaces that default; `agent:<id>` / `human:<handle>` match within the
 *   message's own account only; a `viewer` never resolves, even listed.
 * Returns the attested actor (§9.1), never taken from a request body — and, for a person answering
 * in a delegator's place, that delegator (the actor is still the person: `answersFor`).
 * A caller that cannot even see the message gets 404; one that can see it but may not resolve, 403.
 */
export async function authorizeResolver(row: MessageRow, resolver: Resolver): Promise<AttestedResolver> {
  const envelope = envelopeOf(row);
  const list = allowedResolversOf(envelope);
  const routing = routingOf(row);

  if (resolver.kind === "agent") {
    const p = resolver.principal;
    if (p.accountId !== row.accountId) throw notFound();
    const isSubmitter = p.agentRowId === row.agentRowId;
    const isAddressee = row.toAgentRowId !== null && p.agentRowId === row.toAgentRowId;
    // §9.1 (v0.5): `agent:<id>` matches the principal under any session; `agent:<id>#<sess>` only
    // that exact presented session.
    const qualified = resolver.sessionId ? `agent:${p.agentId}#${resolver.sessionId}` : null;
    const listed = (list?.includes(`agent:${p.agentId}`) || (qualified !== null && list?.includes(qualified))) ?? false;
    // The default without a list: the submitter — or, for an addressed message, the addressee
    // (under any of its sessions) and never the submitter, who must not answer its own ask (§9.1).
    const byDefault = row.toAddress === null ? isSubmitter : isAddressee;
    // An ask routed by the account's approval policy is answered by people only (docs/policies.md):
    // the submitter and every `agent:` entry lose the right.
    if (routing === null && (list === undefined ? byDefault : listed))
      return { actor: qualified ?? `agent:${p.agentId}` };
    // Choice A15: 403 to a principal that legitimately knows the message, 404 to everyone else.
    if (isSubmitter || isAddressee || (routing !== null && listed)) {
      throw new HubError("not_authorized", "this agent may not resolve this message (§9.1 allowed_resolvers)");
    }
    throw notFound();
  }

  // The attested actor is the person's handle in the message's own account (§9.1).
  const seat: Seat | null = await seatFor(resolver.userId, row.accountId);
  if (!seat) throw notFound();
  const refusal = humanResolveRefusal(seat, envelope, routing);
  if (refusal !== null) throw new HubError("not_authorized", refusal);
  const delegator = answersFor(seat, routing);
  return { actor: `human:${seat.handle}`, ...(delegator === null ? {} : { onBehalfOf: delegator }) };
}

/**
 * Why a person seated in the message's account may not resolve it, or null when they may (§9.1):
 * a `viewer` never resolves; an explicit `allowed_resolvers` must list `human:<handle>`; an ask the
 * account's approval policy routed (its recorded `routing`) only by the people it left eligible, or
 * by the delegate of one of them (`seat.delegators`, docs/policies.md "Delegation").
 * The inbox and every notification channel ask this; `authorizeResolver` enforces it.
 */
export function humanResolveRefusal(
  seat: Seat,
  envelope: ReturnType<typeof envelopeOf>,
  routing: Routing | null,
): string | null {
  if (!RESOLVING_ROLES.includes(seat.role)) return `role ${seat.role} may read but not resolve`;
  const list = allowedResolversOf(envelope);
  // §9.1 (v0.5): people are not default resolvers of messages between agents; their recourse is
  // stopping the addressee, whose bounce settles the ask (§7 system:undeliverable).
  if (list === undefined && envelope.to !== undefined)
    return "messages between agents are resolved by their addressee; stop the agent to end the exchange";
  if (list !== undefined && !list.includes(`human:${seat.handle}`))
    return "you are not in the message's allowed_resolvers";
  if (routing !== null && !routing.eligible.includes(seat.handle)) {
    // Separation of duties (docs/policies.md "Quorum"): the agent's sponsors at submit never answer,
    // not even in someone else's place.
    const sponsors = routing.quorum?.exclude_sponsors;
    if (sponsors?.sponsors.includes(seat.handle))
      return `the account's approval policy (rule ${sponsors.rule}) does not ask you: sponsor of this agent`;
    if (answersFor(seat, routing) === null)
      return `the account's approval policy (${routing.rules.join(", ")}) does not ask you`;
  }
  return null;
}

/**
 * Whom a person answers for (docs/policies.md "Delegation"): when the approval policy did not ask
 * them but asked someone whose out-of-office delegation names them now (`seat.delegators`), the
 * first such person by handle; null when they answer as themselves (or not at all). The Response's
 * actor stays the person who answered (§9.1); "for <handle>" is the item's and the audit's.
 */
export function answersFor(seat: Seat, routing: Routing | null): string | null {
  if (routing === null || routing.eligible.includes(seat.handle)) return null;
  return seat.delegators?.find((h) => routing.eligible.includes(h)) ?? null;
}

/**
 * Whether a person is told of an ask or task without being able to answer it (docs/policies.md
 * "Delegation"): the delegate of someone who may answer it, whom the ask's explicit
 * `allowed_resolvers` does not name — §9.1 lets no delegation widen that list.
 */
export function toldAsDelegate(seat: Seat, envelope: ReturnType<typeof envelopeOf>, routing: Routing | null): boolean {
  return (seat.delegators ?? []).some(
    (h) => humanResolveRefusal({ accountId: seat.accountId, handle: h, role: seat.role }, envelope, routing) === null,
  );
}
