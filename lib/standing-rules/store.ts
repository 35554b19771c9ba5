/**
 * Standing rules, made and ended by people (docs/policies.md "Standing rules"): "answer this and
 * remember for …" on an open confirm or select ask answers it as the person and saves the rule in
 * the same breath (`answerAndRemember`); the person (settings), the account's owners and admins
 * (admin pages) and the operator (`ma2h-hub rule revoke`) end it. Every change is audited.
 */
import { clock } from "../clock";
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import type { Message } from "@ma2h/protocol/message";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { isPendingApproval } from "../approvals/pending";
import { humanResolveRefusal } from "../messages/access";
import { envelopeOf } from "../messages/record";
import { resolveMessage } from "../messages/resolve";
import { durationAllowed, RULE_DURATIONS, type RuleDuration } from "../policies/model";
import { routingOf } from "../policies/routing";
import { standingRulesSettings } from "../policies/store";
import { ADMIN_ROLES, seatFor } from "../principals/seats";
import { describeScope, MAX_TITLE_PATTERN, optionValues, ruleEligibility, type RuleScope, titleGlob } from "./scope";

/** What the form asks besides the answer: how long, and what narrows the scope. */
export interface RememberRequest {
  value: string;
  comment?: string;
  duration: RuleDuration;
  /** Narrow to the ask's own project (when it has one). */
  project?: boolean;
  /** Narrow to asks carrying all of these (each one of the ask's own tags). */
  tags?: string[];
  titlePattern?: string;
  /** Count "would have answered" without answering, to try the rule first. */
  shadow?: boolean;
}

export interface RuleInfo {
  id: string;
  actor: string;
  creator: string;
  scope: RuleScope & { value: string };
  words: string;
  shadow: boolean;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  stoppedAt: Date | null;
  /** active, shadow, expired, revoked, stopped — what the lists show. */
  state: "active" | "shadow" | "expired" | "revoked" | "stopped";
  hits: number;
  shadowHits: number;
  hourlyCap: number;
}

export const ruleActor = (id: string) => `system:rule/${id}`;
/** The §6 Response comment of a rule's answer: the honesty rule — never presented as a person's. */
export const ruleComment = (creator: string) => `answered by a standing rule set by human:${creator}`;

type Row = {
  id: string;
  agentId: string;
  mode: string;
  options: string;
  value: string;
  project: string | null;
  tags: string[];
  titlePattern: string | null;
  shadow: boolean;
  hourlyCap: number;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  stoppedAt: Date | null;
  creator: { handle: string };
};

export const RULE_SELECT = {
  id: true,
  agentId: true,
  mode: true,
  options: true,
  value: true,
  project: true,
  tags: true,
  titlePattern: true,
  shadow: true,
  hourlyCap: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  stoppedAt: true,
  creator: { select: { handle: true } },
} as const;

export function scopeOf(r: Pick<Row, "agentId" | "mode" | "options" | "project" | "tags" | "titlePattern">): RuleScope {
  return {
    agentId: r.agentId,
    mode: r.mode as RuleScope["mode"],
    options: JSON.parse(r.options) as string[],
    project: r.project,
    tags: r.tags,
    titlePattern: r.titlePattern,
  };
}

function stateOf(r: Row, now: Date): RuleInfo["state"] {
  if (r.revokedAt) return "revoked";
  if (r.stoppedAt) return "stopped";
  if (r.expiresAt && r.expiresAt <= now) return "expired";
  return r.shadow ? "shadow" : "active";
}

async function infoOf(rows: Row[]): Promise<RuleInfo[]> {
  const now = clock.now();
  const counts = rows.length
    ? await db().standingRuleHit.groupBy({
        by: ["ruleId", "shadow"],
        where: { ruleId: { in: rows.map((r) => r.id) } },
        _count: { _all: true },
      })
    : [];
  const count = (id: string, shadow: boolean) =>
    counts.find((c) => c.ruleId === id && c.shadow === shadow)?._count._all ?? 0;
  return rows.map((r) => {
    const scope = { ...scopeOf(r), value: r.value };
    return {
      id: r.id,
      actor: ruleActor(r.id),
      creator: r.creator.handle,
      scope,
      words: describeScope(scope),
      shadow: r.shadow,
      createdAt: r.createdAt,
      expiresAt: r.expiresAt,
      revokedAt: r.revokedAt,
      stoppedAt: r.stoppedAt,
      state: stateOf(r, now),
      hits: count(r.id, false),
      shadowHits: count(r.id, true),
      hourlyCap: r.hourlyCap,
    };
  });
}

/** The account's rules (a person's own when `creator` is given), newest first. */
export async function listRules(accountId: string, creator?: string): Promise<RuleInfo[]> {
  const rows = await db().standingRule.findMany({
    where: { accountId, ...(creator === undefined ? {} : { creator: { handle: creator } }) },
    select: RULE_SELECT,
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
  return infoOf(rows);
}

/** One rule by id, in the account (null when it is not one of its rules). */
export async function ruleById(accountId: string, id: string): Promise<RuleInfo | null> {
  const row = await db().standingRule.findFirst({ where: { id, accountId }, select: RULE_SELECT });
  return row ? ((await infoOf([row]))[0] ?? null) : null;
}

/**
 * Why the person may not make a standing rule of this ask, or null: the account's settings, the
 * ask (`ruleEligibility`), and whether they may answer it themselves.
 */
export async function rememberRefusal(userId: string, messageId: string): Promise<string | null> {
  const row = await db().message.findUnique({ where: { id: messageId } });
  const seat = row ? await seatFor(userId, row.accountId) : null;
  if (!row || !seat) return "no such message";
  if (row.status !== "open") return `already ${row.status}`;
  const settings = await standingRulesSettings(row.accountId);
  if (!settings.enabled) return "the account's approval policy has standing rules off";
  const envelope = envelopeOf(row);
  const routing = routingOf(row);
  const why = ruleEligibility(envelope, routing);
  if (why !== null) return why;
  // Answering in someone's place is theirs to give, not a rule to make: one's own eligibility only.
  return humanResolveRefusal({ ...seat, delegators: [] }, envelope, routing);
}

function checkedScope(req: RememberRequest, envelope: Message, agentId: string): RuleScope {
  const options = optionValues(envelope);
  if (envelope.type !== "ask" || options === null || envelope.request.mode === "input")
    throw new HubError("invalid_field", "standing rules answer confirm and select asks only");
  if (!options.includes(req.value)) throw new HubError("invalid_field", `${req.value} is not one of the ask's options`);
  const own = envelope.tags ?? [];
  const tags = [...new Set(req.tags ?? [])];
  const stray = tags.find((t) => !own.includes(t));
  if (stray !== undefined) throw new HubError("invalid_field", `tag ${stray} is not one of the ask's tags`);
  const project = (envelope.agent as { project?: string }).project;
  if (req.project && project === undefined) throw new HubError("invalid_field", "the ask names no project");
  const pattern = req.titlePattern?.trim() || null;
  if (pattern !== null && pattern.length > MAX_TITLE_PATTERN)
    throw new HubError("invalid_field", `a title pattern is at most ${MAX_TITLE_PATTERN} characters`);
  if (pattern !== null && !titleGlob(pattern).test(envelope.title))
    throw new HubError("invalid_field", `the title pattern "${pattern}" does not match this ask's title`);
  return {
    agentId,
    mode: envelope.request.mode,
    options,
    project: req.project ? (project ?? null) : null,
    tags,
    titlePattern: pattern,
  };
}

/**
 * Answers the open ask as the person (the same path as any answer: §9.1, the approval policy, §7)
 * and, once that answer is the ask's Response, saves the standing rule with its scope — all of it
 * checked first, so a refused rule changes nothing. Returns the rule.
 */
export async function answerAndRemember(userId: string, messageId: string, req: RememberRequest): Promise<RuleInfo> {
  const refusal = await rememberRefusal(userId, messageId);
  if (refusal === "no such message") throw new HubError("not_found", "no such message");
  if (refusal !== null) throw new HubError("not_authorized", `no standing rule here: ${refusal}`);
  const row = await db().message.findUniqueOrThrow({ where: { id: messageId }, include: { agent: true } });
  const seat = await seatFor(userId, row.accountId);
  if (!seat) throw new HubError("not_found", "no such message");
  const settings = await standingRulesSettings(row.accountId);
  if (!(req.duration in RULE_DURATIONS)) throw new HubError("invalid_field", `unknown duration ${req.duration}`);
  if (!durationAllowed(req.duration, settings.longest))
    throw new HubError(
      "invalid_field",
      `the account's approval policy allows standing rules of at most ${settings.longest}`,
    );
  const scope = checkedScope(req, envelopeOf(row), row.agent.agentId);
  const answered = await resolveMessage({ kind: "human", userId }, messageId, {
    resolution: "answered",
    value: req.value,
    ...(req.comment ? { comment: req.comment } : {}),
  });
  if (isPendingApproval(answered)) throw new HubError("invalid_field", "this ask counts approvals: no standing rule");
  const now = clock.now();
  const ms = RULE_DURATIONS[req.duration];
  const membership = await db().membership.findFirstOrThrow({
    where: { accountId: row.accountId, handle: seat.handle },
    select: { id: true },
  });
  const id = mintId("standingRule");
  await db().$transaction(async (tx) => {
    await tx.standingRule.create({
      data: {
        id,
        accountId: row.accountId,
        creatorId: membership.id,
        agentId: scope.agentId,
        mode: scope.mode,
        options: JSON.stringify(scope.options),
        value: req.value,
        project: scope.project,
        tags: scope.tags,
        titlePattern: scope.titlePattern,
        shadow: req.shadow === true,
        hourlyCap: settings.answers_per_hour,
        sourceMessageId: messageId,
        createdAt: now,
        expiresAt: ms === null ? null : new Date(now.getTime() + ms),
      },
    });
    await writeAudit(tx, {
      accountId: row.accountId,
      messageId,
      actor: `human:${seat.handle}`,
      event: AUDIT_EVENT.standingRuleCreated,
      detail: {
        rule: id,
        scope: describeScope({ ...scope, value: req.value }),
        duration: req.duration,
        shadow: req.shadow === true,
      },
      at: now,
    });
  });
  return (await ruleById(row.accountId, id)) as RuleInfo;
}

/**
 * Ends a rule now, audited. Its creator, the account's owners and admins (`userId`), or the
 * operator (`userId` null, actor `system:cli`) may; anyone else gets `404` as for an unknown rule.
 */
export async function revokeRule(
  accountId: string,
  id: string,
  by: { userId: string } | { actor: string },
): Promise<RuleInfo> {
  const row = await db().standingRule.findFirst({ where: { id, accountId }, select: RULE_SELECT });
  if (!row) throw new HubError("not_found", "no such standing rule");
  let actor: string;
  if ("userId" in by) {
    const seat = await seatFor(by.userId, accountId);
    if (!seat || (seat.handle !== row.creator.handle && !ADMIN_ROLES.includes(seat.role)))
      throw new HubError("not_found", "no such standing rule");
    actor = `human:${seat.handle}`;
  } else actor = by.actor;
  const now = clock.now();
  if (row.revokedAt === null) {
    await db().$transaction(async (tx) => {
      await tx.standingRule.update({ where: { id }, data: { revokedAt: now, revokedBy: actor } });
      await writeAudit(tx, { accountId, actor, event: AUDIT_EVENT.standingRuleRevoked, detail: { rule: id }, at: now });
    });
  }
  return (await ruleById(accountId, id)) as RuleInfo;
}
