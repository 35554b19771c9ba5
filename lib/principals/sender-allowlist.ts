/**
 * §13.5 per-destination sender allowlists: which agents of the account may address an agent with a
 * `to`-addressed submit (§4, §8.1). Unrestricted (`{ any: true }`, the default) admits every agent of
 * the account; restricted (`{ allow: [...] }`) admits only the listed `agent.id`s — possibly none.
 * This module reads and sets the policy; the submit path applies it, and a blocked submit there is
 * `422 unknown_destination`, the same as a nonexistent destination (§8.0), so nothing here is shown
 * to a sender.
 *
 * The list holds wire `agent.id`s, not agent rows: the submit compares the sender's attested id.
 * An id that is not (yet) an agent of the account may be listed — so a destination can be locked
 * down before the sender is provisioned — and is reported back as `unknown` (docs/decisions/inter-agent.md).
 */
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { actorOf, type AdminOptions } from "./admin-scope";
import { validateAgentId } from "./agents";
import { ADMIN_ROLES } from "./seats";
import { lockAgentPolicy } from "./sender-allowlist.sql";

export type SenderPolicy = { any: true } | { allow: string[] };

/** The most ids one destination's allowlist holds (a list past this is a group, not an allowlist). */
export const MAX_ALLOWED_SENDERS = 100;

/** The policy an agent row's two columns hold. */
export function policyOf(row: { sendersRestricted: boolean; allowedSenders: string[] | null }): SenderPolicy {
  // The column has a default but no NOT NULL (migration 20261205150000): a null list is empty.
  return row.sendersRestricted ? { allow: [...(row.allowedSenders ?? [])] } : { any: true };
}

/** The policy of the agent row `agentRowId`, or `404`. */
export async function readSenderAllowlist(agentRowId: string): Promise<SenderPolicy> {
  const row = await db().agent.findUnique({
    where: { id: agentRowId },
    select: { sendersRestricted: true, allowedSenders: true },
  });
  if (!row) throw new HubError("not_found", `agent ${agentRowId} not found`);
  return policyOf(row);
}

/** Whether `senderAgentId` (an agent of the destination's account) passes the policy. */
export function senderAllowed(policy: SenderPolicy, senderAgentId: string): boolean {
  return "any" in policy || policy.allow.includes(senderAgentId);
}

/** The policy in words: "any agent of the account", "no agent", "only a, b". */
export function describeSenders(policy: SenderPolicy): string {
  if ("any" in policy) return "any agent of the account";
  return policy.allow.length === 0 ? "no agent" : `only ${policy.allow.join(", ")}`;
}

/**
 * A policy as given (a CLI flag, a form, a test) checked: exactly `{ any: true }` or `{ allow }` with
 * at most MAX_ALLOWED_SENDERS ids, each a valid agent id (validateAgentId) that could ever send an
 * addressed message — §4 refuses `to` from a `#`-bearing `agent.id`, so listing one admits nothing.
 * Duplicates collapse; the order given is kept.
 */
export function parseSenderPolicy(policy: unknown): SenderPolicy {
  if (typeof policy === "object" && policy !== null) {
    const p = policy as Record<string, unknown>;
    const keys = Object.keys(p);
    if (keys.length === 1 && p.any === true) return { any: true };
    if (keys.length === 1 && Array.isArray(p.allow)) {
      const allow = [...new Set(p.allow as unknown[])].map((id) => {
        if (typeof id !== "string") throw new HubError("validation_error", "allowed senders: each must be an agent id");
        validateAgentId(id);
        if (id.includes("#"))
          throw new HubError(
            "invalid_field",
            `agent id ${JSON.stringify(id)} cannot address another agent: it contains '#' (§4)`,
          );
        return id;
      });
      if (allow.length > MAX_ALLOWED_SENDERS)
        throw new HubError("invalid_field", `allowed senders: at most ${MAX_ALLOWED_SENDERS} agent ids`);
      return { allow };
    }
  }
  throw new HubError("validation_error", "allowed senders: either any agent of the account, or a list of agent ids");
}

/** Refuses a member or viewer (the web passes the seat's role; the CLI, the operator, has full authority). */
function requireAdminFor(opts: AdminOptions | undefined): void {
  if (opts?.role !== undefined && !(ADMIN_ROLES as readonly string[]).includes(opts.role))
    throw new HubError("not_authorized", "only an owner or admin can change who may message an agent");
}

/** The listed ids that are not agents of `accountId` right now (a hint, never a refusal). */
async function unknownSenders(accountId: string, policy: SenderPolicy): Promise<string[]> {
  if ("any" in policy || policy.allow.length === 0) return [];
  const known = await db().agent.findMany({
    where: { accountId, agentId: { in: policy.allow } },
    select: { agentId: true },
  });
  const have = new Set(known.map((k) => k.agentId));
  return policy.allow.filter((id) => !have.has(id));
}

export interface SenderAllowlistView {
  agentRowId: string;
  agentId: string;
  senders: SenderPolicy;
  /** Listed ids that are not agents of the account (yet). */
  unknown: string[];
}

/** The policy of `agentId` in `accountId` with the listed ids that name no agent there; `404` when unknown. */
export async function senderAllowlistOf(accountId: string, agentId: string): Promise<SenderAllowlistView> {
  const row = await db().agent.findUnique({
    where: { accountId_agentId: { accountId, agentId } },
    select: { id: true, sendersRestricted: true, allowedSenders: true },
  });
  if (!row) throw new HubError("not_found", `agent ${agentId} not found`);
  const senders = policyOf(row);
  return { agentRowId: row.id, agentId, senders, unknown: await unknownSenders(accountId, senders) };
}

/**
 * Sets who may address `agentId` of `accountId` (§13.5). An owner or admin (the web passes the seat's
 * role and account: another account's agent is `404`, as an unknown one) or the operator's CLI. The
 * agent row is locked (`FOR NO KEY UPDATE`: submits' foreign-key checks do not wait), so two edits at
 * once each see what the other wrote; a change is audited `agent.senders_changed` with both policies,
 * and setting the current policy changes and audits nothing.
 */
export async function setSenderAllowlist(
  opts: AdminOptions | undefined,
  accountId: string,
  agentId: string,
  policy: unknown,
): Promise<SenderAllowlistView & { changed: boolean }> {
  requireAdminFor(opts);
  if (opts?.accountId && opts.accountId !== accountId) throw new HubError("not_found", `agent ${agentId} not found`);
  const next = parseSenderPolicy(policy);
  const view = await db().$transaction(async (tx) => {
    const locked = await lockAgentPolicy(tx, accountId, agentId);
    if (!locked) throw new HubError("not_found", `agent ${agentId} not found`);
    const from = policyOf({ sendersRestricted: locked.senders_restricted, allowedSenders: locked.allowed_senders });
    const same = JSON.stringify(from) === JSON.stringify(next);
    if (!same) {
      const now = clock.now();
      await tx.agent.update({
        where: { id: locked.id },
        data: { sendersRestricted: !("any" in next), allowedSenders: "any" in next ? [] : next.allow },
      });
      await writeAudit(tx, {
        accountId,
        actor: actorOf(opts),
        event: AUDIT_EVENT.agentSendersChanged,
        detail: { agent_id: agentId, from, to: next },
        at: now,
      });
    }
    return { agentRowId: locked.id, changed: !same };
  });
  return { ...view, agentId, senders: next, unknown: await unknownSenders(accountId, next) };
}
