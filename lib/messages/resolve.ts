/**
 * §8.8 resolve, for agents and operators alike (the route authenticates; this verb authorizes,
 * validates and applies the §7 CAS). On success `{id, status, resolution_id}`; after a terminal,
 * 409 `already_terminal` with the existing outcome — including an expiry this call applied itself
 * because it reached an open message after its `expires_at`.
 */
import { clock } from "../clock";
import { db } from "../db";
import type { ResolveResult } from "@ma2h/protocol/api-bodies";
import { HubError } from "@ma2h/protocol/errors";
import { checkResolution, parseResolveRequest } from "@ma2h/protocol/rules";
import { authorizeResolver, loadMessage, notFound, type Resolver } from "./access";
import { terminalConflict } from "./conflict";
import { afterTerminal } from "./after-terminal";
import { applyOwedTerminalInTx } from "./undeliverable";
import { commitTerminal } from "./lifecycle";
import { resolvedOutcome } from "./outcomes";
import { envelopeOf } from "./record";
import type { ResolveChannel } from "./answer-channel";
import { castVote, openVote } from "./approvals";
import type { PendingApproval } from "../approvals/pending";
import { routingOf } from "../policies/routing";
import { resolveSpan } from "../telemetry/spans";
import { annotate } from "../telemetry/tracing";

/**
 * Resolves, or — for a person answering an ask a quorum rule routed — records their vote: then the
 * answer is a `PendingApproval` (`status: "open"`, `/v1` answers it `202`) until the vote that
 * completes the quorum, which answers as any resolve.
 */
export function resolveMessage(
  resolver: Resolver,
  id: string,
  body: Record<string, unknown>,
  via?: ResolveChannel,
): Promise<ResolveResult | PendingApproval> {
  // In the message's trace when tracing is on (lib/telemetry): the agent sees the answer arrive.
  return resolveSpan(id, async (span) => {
    const result = await resolveUntraced(resolver, id, body, via);
    annotate(span, { "ma2h.resolution": result.status });
    return result;
  });
}

async function resolveUntraced(
  resolver: Resolver,
  id: string,
  body: Record<string, unknown>,
  via?: ResolveChannel,
): Promise<ResolveResult | PendingApproval> {
  const row = await loadMessage(id);
  if (!row) {
    const tomb = await db().messageTombstone.findUnique({ where: { id } });
    if (tomb && resolver.kind === "agent" && tomb.agentRowId === resolver.principal.agentRowId) {
      throw new HubError("gone", "message was deleted after its retention period");
    }
    throw notFound();
  }
  // A person's answer to an ask a quorum rule routed is a vote (docs/policies.md "Quorum"): it
  // completes the ask only with the approvals it needs, through the same §7 CAS below. Its read of
  // the votes runs with the authorization's.
  const routing = routingOf(row);
  const vote =
    resolver.kind === "human" && routing?.quorum
      ? openVote(row, { ...routing, quorum: routing.quorum }, resolver.userId)
      : null;
  const { actor, onBehalfOf } = await authorizeResolver(row, resolver);
  if (row.type === "notify") throw new HubError("invalid_field", "a notify has no resolution (§5.1)");
  const envelope = envelopeOf(row);
  const request = parseResolveRequest(body);
  checkResolution(envelope, request);
  if (vote) return castVote(vote, envelope, request, actor, via, onBehalfOf);

  const now = clock.now();
  const outcome = { ...resolvedOutcome(envelope, request, actor, now), channel: via?.channel, onBehalfOf };
  const withResolution = via?.withResolution;
  // The §7 statement is atomic on its own: one round trip. Only a channel that writes more
  // with the resolution (an email answer spends its token) needs a transaction around it.
  const resolved = withResolution
    ? await db().$transaction(async (tx) => {
        const result = await commitTerminal(tx, row, envelope, "resolve", outcome, now);
        if (result.won) await withResolution(tx, now);
        return result;
      })
    : await commitTerminal(null, row, envelope, "resolve", outcome, now);
  // Lost: an overdue open message is expired by this call (§7) — or an addressed one whose delivery
  // ended undeliverable is auto-resolved — and the 409 reports that.
  const expired = resolved.won ? null : await db().$transaction((tx) => applyOwedTerminalInTx(tx, id, now));
  await afterTerminal(resolved);
  if (expired) await afterTerminal(expired);
  if (resolved.resolutionId) return { id, status: request.resolution, resolution_id: resolved.resolutionId };
  const after = await db().message.findUniqueOrThrow({ where: { id }, select: { id: true, status: true } });
  throw terminalConflict(after);
}
