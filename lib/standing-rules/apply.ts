/**
 * A standing rule answering a new ask (docs/policies.md "Standing rules"), run right after the
 * submit commits: the account's live rules for the ask's attested agent and mode are read, oldest
 * first; the first whose scope covers the ask, whose creator may still answer it under the policy
 * recorded at submit, and who is under its hourly cap, answers it through the same §7
 * compare-and-set as a person — a plain §6 Response whose actor is `system:rule/<id>` and whose
 * comment names the person who set it, signed and pushed as any other. A person answering at the
 * same moment and the rule race on that compare-and-set: exactly one Response. A shadow rule
 * only records that it would have answered. A rule at its cap stops itself and tells its creator.
 */
import type { Prisma } from "../generated/prisma/client";
import { clock } from "../clock";
import { db } from "../db";
import type { Message } from "@ma2h/protocol/message";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { log } from "../log";
import { humanResolveRefusal } from "../messages/access";
import { afterTerminal } from "../messages/after-terminal";
import { commitTerminal } from "../messages/lifecycle";
import { resolvedOutcome } from "../messages/outcomes";
import { KIND_RULE_STOPPED } from "../notifications/kinds";
import { plannedRows } from "../notifications/planned-rows";
import { standingRulesSettings } from "../policies/store";
import type { Routing } from "../policies/evaluate";
import type { AgentPrincipal, Role } from "../principals/types";
import { envelopeOf } from "../messages/record";
import { routingOf } from "../policies/routing";
import { agentHasLiveRule } from "./apply.sql";
import { ruleEligibility, scopeMatches } from "./scope";
import { ruleActor, ruleComment, scopeOf } from "./store";

const HOUR_MS = 3_600_000;

/** The new ask as the rules read it. */
export interface NewAsk {
  id: string;
  accountId: string;
  attestedAgentId: string;
  envelope: Message;
  routing: Routing | null;
}

/**
 * Right after a submit (lib/http/routes/submit.ts; not for a replay): lets the first applicable rule
 * answer the new ask; returns the rule id that answered, or null. One indexed read when the agent
 * has no live rule. Never throws for a rule's sake: the ask is already accepted, and a person answers it
 * if no rule does.
 */
export async function answerByStandingRule(principal: AgentPrincipal, messageId: string): Promise<string | null> {
  try {
    const now = clock.now();
    // The common case — no live rule for this agent — is one indexed read on the pool.
    if (!(await agentHasLiveRule(principal.accountId, principal.agentId, now))) return null;
    const rules = await liveRules(principal, now);
    if (rules.length === 0) return null;
    const row = await db().message.findUnique({
      where: { id: messageId },
      select: { id: true, accountId: true, status: true, envelope: true, routing: true, toAddress: true },
    });
    if (!row || row.status !== "open" || row.toAddress !== null) return null;
    const ask: NewAsk = {
      id: row.id,
      accountId: row.accountId,
      attestedAgentId: principal.agentId,
      envelope: envelopeOf(row),
      routing: routingOf(row),
    };
    if (ruleEligibility(ask.envelope, ask.routing) !== null) return null;
    if (!(await standingRulesSettings(ask.accountId)).enabled) return null;
    return await applyRules(rules, ask, now);
  } catch (err) {
    log.warn("standing rules could not be applied", { message_id: messageId, error: String(err) });
    return null;
  }
}

/** The agent's rules that are neither revoked, stopped nor expired, oldest first, with their creators. */
function liveRules(principal: AgentPrincipal, now: Date) {
  return db().standingRule.findMany({
    where: {
      accountId: principal.accountId,
      agentId: principal.agentId,
      revokedAt: null,
      stoppedAt: null,
      OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
    },
    include: { creator: { select: { handle: true, role: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
}

async function applyRules(
  rules: Awaited<ReturnType<typeof liveRules>>,
  ask: NewAsk,
  now: Date,
): Promise<string | null> {
  for (const rule of rules) {
    // The scope holds the mode too: a rule made on a confirm ask never answers a select.
    if (!scopeMatches(scopeOf(rule), ask.envelope, ask.attestedAgentId)) continue;
    // Only while its creator may still answer this ask under the policy recorded at submit (§9.1).
    const creator = { accountId: ask.accountId, handle: rule.creator.handle, role: rule.creator.role as Role };
    if (humanResolveRefusal(creator, ask.envelope, ask.routing) !== null) continue;
    if (rule.shadow) {
      await recordShadowHit(rule.id, ask, now);
      continue;
    }
    const recent = await db().standingRuleHit.count({
      where: { ruleId: rule.id, shadow: false, at: { gt: new Date(now.getTime() - HOUR_MS) } },
    });
    if (recent >= rule.hourlyCap) {
      await stopRule(rule.id, rule.hourlyCap, rule.creatorId, ask, now);
      continue;
    }
    if (await answerWith(rule.id, rule.value, rule.creator.handle, ask, now)) return rule.id;
    return null; // lost the race: the ask is settled
  }
  return null;
}

/** The rule's answer through the §7 compare-and-set, with its hit and audit row; false when it lost. */
async function answerWith(ruleId: string, value: string, creator: string, ask: NewAsk, now: Date): Promise<boolean> {
  const actor = ruleActor(ruleId);
  const outcome = resolvedOutcome(
    ask.envelope,
    { resolution: "answered", value, comment: ruleComment(creator) },
    actor,
    now,
  );
  const commit = await db().$transaction(async (tx) => {
    const result = await commitTerminal(tx, { id: ask.id }, ask.envelope, "resolve", outcome, now);
    if (result.won) {
      await tx.standingRuleHit.create({ data: { ruleId, messageId: ask.id, shadow: false, at: now } });
      await writeAudit(tx, {
        accountId: ask.accountId,
        messageId: ask.id,
        actor,
        event: AUDIT_EVENT.standingRuleAnswered,
        detail: { rule: ruleId, set_by: `human:${creator}`, value },
        at: now,
      });
    }
    return result;
  });
  await afterTerminal(commit);
  return commit.won;
}

/** A shadow rule's "would have answered": counted and audited, nothing answered. */
async function recordShadowHit(ruleId: string, ask: NewAsk, now: Date): Promise<void> {
  await db().$transaction(async (tx) => {
    await tx.standingRuleHit.createMany({
      data: [{ ruleId, messageId: ask.id, shadow: true, at: now }],
      skipDuplicates: true,
    });
    await writeAudit(tx, {
      accountId: ask.accountId,
      messageId: ask.id,
      actor: ruleActor(ruleId),
      event: AUDIT_EVENT.standingRuleShadowHit,
      detail: { rule: ruleId },
      at: now,
    });
  });
}

/** Stops a rule at its hourly cap, audited, and tells its creator on their channels (this ask's item). */
async function stopRule(ruleId: string, cap: number, creatorId: string, ask: NewAsk, now: Date): Promise<void> {
  const creator = await db().membership.findUnique({ where: { id: creatorId }, select: { userId: true } });
  const rows: Prisma.NotificationCreateManyInput[] = creator
    ? await plannedRows(
        ask,
        [creator.userId],
        KIND_RULE_STOPPED,
        { type: "ask", priority: (ask.envelope.priority ?? "normal") as "normal" },
        now,
        now,
      )
    : [];
  await db().$transaction(async (tx) => {
    const stopped = await tx.standingRule.updateMany({
      where: { id: ruleId, stoppedAt: null },
      data: { stoppedAt: now },
    });
    if (stopped.count === 0) return;
    await writeAudit(tx, {
      accountId: ask.accountId,
      messageId: ask.id,
      actor: ruleActor(ruleId),
      event: AUDIT_EVENT.standingRuleStopped,
      detail: { rule: ruleId, answers_per_hour: cap },
      at: now,
    });
    await tx.notification.createMany({ data: rows, skipDuplicates: true });
  });
}
