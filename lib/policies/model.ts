/**
 * The approval policy's shape (docs/policies.md): an account's list of rules, each matching asks and
 * tasks on what they say and naming who is asked. One zod schema, used by the policy-as-code apply
 * (YAML, lib/policies/yaml.ts), the store and the tester; unknown keys are refused so a typo never
 * silently widens a policy. Pure: no I/O.
 */
import { z } from "zod";
import { GROUP_NAME_PATTERN } from "../principals/names";

export const POLICY_VERSION = 1;
export const PRIORITIES = ["low", "normal", "high", "urgent"] as const;
export type Priority = (typeof PRIORITIES)[number];
export const VERBS = ["ask", "task"] as const;
export type Verb = (typeof VERBS)[number];
export const MODES = ["select", "input", "confirm"] as const;
export type Mode = (typeof MODES)[number];

/** The most rules one account's policy holds. */
export const MAX_RULES = 200;
/** The most approvals one rule may ask for. */
export const MAX_APPROVALS = 20;

const RULE_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const oneOrMany = <T extends z.ZodType>(item: T) =>
  z.union([item, z.array(item).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[]);
const text = z.string().min(1).max(200);
const personOrGroup = z
  .string()
  .regex(/^(human:[a-z0-9._-]{1,64}|group:[a-z0-9][a-z0-9._-]{0,62})$/, "use human:<handle> or group:<name>");

/**
 * What a rule matches on. Every condition given must hold; a rule with no condition matches every
 * ask and task. `agent` is the only condition on what the Hub attests (the credential's agent id);
 * the rest are what the agent asserts about its message (docs/policies.md "What an agent can and
 * cannot change").
 */
export const MatchSchema = z.strictObject({
  /** A glob on the attested `agent.id`: `*` any characters but `/`, `**` any characters, `?` one. */
  agent: text.optional(),
  /** `agent.project`, exactly. */
  project: text.optional(),
  /** At least one of these tags. */
  tags_any: z.array(text).min(1).optional(),
  /** All of these tags. */
  tags_all: z.array(text).min(1).optional(),
  /** `agent.labels`: each key has exactly this value. */
  labels: z.record(text, z.string().max(200)).optional(),
  /** This priority or a higher one. */
  priority: z.enum(PRIORITIES).optional(),
  verb: oneOrMany(z.enum(VERBS)).optional(),
  /** An ask's `request.mode` (a rule with a mode matches no task). */
  mode: oneOrMany(z.enum(MODES)).optional(),
});

export const RuleSchema = z.strictObject({
  name: z.string().regex(RULE_NAME, "1-63 characters of [a-z0-9._-], starting with a letter or digit"),
  description: z.string().max(500).optional(),
  match: MatchSchema.default({}),
  /** The people and groups who are notified and may answer. */
  assign: z.array(personOrGroup).min(1).max(100),
  /** Whether notification mail may carry one-click answers (default: yes). */
  email_answers: z.boolean().optional(),
  /**
   * Quorum (docs/policies.md "Quorum"): how many distinct eligible people must give the same answer
   * (default 1). More than 1 only on a rule that matches confirm and select asks alone.
   */
  approvals: z.number().int().min(1).max(MAX_APPROVALS).optional(),
  /** At least one of the approvals comes from a member of this group (a group name, no `group:`). */
  require_from: z.string().regex(GROUP_NAME_PATTERN, "a group name: 1-63 characters of [a-z0-9._-]").optional(),
  /** The agent's sponsors (lib/principals/sponsors.ts) may not answer. */
  exclude_sponsors: z.boolean().optional(),
  /** One eligible `deny` of a confirm ask ends it, with that person as the actor. Confirm asks only. */
  veto: z.boolean().optional(),
  /**
   * Escalation (docs/policies.md "Escalation"): when nobody has answered this long after submit
   * (an ISO-8601 duration such as `PT30M`, or `90s`, `30m`, `2h`, `1d`), `escalate_to` is assigned
   * and told. Both keys or neither.
   */
  escalate_after: z
    .string()
    .refine((v) => durationMs(v) !== null, "an ISO-8601 duration (PT30M, P1D) or a number with s, m, h or d (30m, 2h)")
    .optional(),
  escalate_to: personOrGroup.optional(),
});

/** The modes a rule's match admits: every mode when it names none. */
function modesOf(rule: Pick<Rule, "match">): readonly Mode[] {
  return rule.match.mode ?? MODES;
}

/**
 * Why a rule's quorum keys cannot apply to everything it matches, or null. Approvals are counted
 * on the option an ask's people choose, so a rule asking for more than one approval, or for one
 * from a group, must match confirm and select asks only — a rule that could match an input ask or
 * a task is refused (its `match.mode` says which); a veto is a `deny`, so confirm asks only.
 */
export function quorumProblem(rule: Rule): string | null {
  const modes = modesOf(rule);
  const counted = (rule.approvals ?? 1) > 1 || rule.require_from !== undefined;
  if (counted && modes.some((m) => m === "input")) {
    const what =
      (rule.approvals ?? 1) > 1 ? `${rule.approvals} approvals` : `an approval from group ${rule.require_from}`;
    return `rule ${rule.name} asks for ${what}, which only confirm and select asks can give: add match.mode: [confirm, select] (a rule that could match an input ask or a task cannot count approvals)`;
  }
  if (rule.veto === true && modes.some((m) => m !== "confirm"))
    return `rule ${rule.name} has veto, which only a confirm ask's deny can cast: add match.mode: confirm`;
  if ((rule.escalate_after === undefined) !== (rule.escalate_to === undefined))
    return `rule ${rule.name} needs both escalate_after and escalate_to, or neither`;
  return null;
}

/** The longest `escalate_after`: 30 days, as the notification delays (an item's useful life). */
export const MAX_ESCALATE_AFTER_MS = 30 * 86_400_000;

const ISO_DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const SHORT_DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * An `escalate_after` in milliseconds: an ISO-8601 duration of days, hours, minutes and seconds
 * (`PT30M`, `P1DT2H`; no years or months, whose length varies) or a whole number with a unit
 * (`90s`, `30m`, `2h`, `1d`). Null when it is neither, zero, or over 30 days.
 */
export function durationMs(text: string): number | null {
  let ms: number;
  const short = SHORT_DURATION.exec(text);
  const iso = short ? null : ISO_DURATION.exec(text);
  if (short) ms = Number(short[1]) * UNIT_MS[short[2] as keyof typeof UNIT_MS];
  else if (iso && text !== "P" && !text.endsWith("T")) {
    const [, d, h, m, s] = iso.map((x) => Number(x ?? 0));
    ms = (d ?? 0) * 86_400_000 + (h ?? 0) * 3_600_000 + (m ?? 0) * 60_000 + (s ?? 0) * 1000;
  } else return null;
  return ms > 0 && ms <= MAX_ESCALATE_AFTER_MS ? ms : null;
}

export const RulesSchema = z
  .array(RuleSchema)
  .max(MAX_RULES)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((r, i) => {
      if (seen.has(r.name))
        ctx.addIssue({ code: "custom", path: [i, "name"], message: `a second rule named ${r.name}` });
      seen.add(r.name);
      const problem = quorumProblem(r);
      if (problem !== null) ctx.addIssue({ code: "custom", path: [i, "match"], message: problem });
    });
  });

/** How long a person may have a standing rule answer for them (docs/policies.md "Standing rules"). */
export const RULE_DURATIONS = {
  "30m": 30 * 60_000,
  "2h": 2 * 3_600_000,
  "8h": 8 * 3_600_000,
  until_revoked: null,
} as const;
export type RuleDuration = keyof typeof RULE_DURATIONS;
export const RULE_DURATION_NAMES = Object.keys(RULE_DURATIONS) as RuleDuration[];

/**
 * The account's settings for standing rules (the policy file's `standing_rules`): whether people
 * may make them, the longest they may last, and how many answers an hour a rule gives before it
 * stops itself. Absent: on, 8 hours at most, 100 an hour.
 */
export const StandingRulesSettingsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  longest: z.enum(RULE_DURATION_NAMES as [RuleDuration, ...RuleDuration[]]).default("8h"),
  answers_per_hour: z.number().int().min(1).max(10_000).default(100),
});
export type StandingRulesSettings = z.infer<typeof StandingRulesSettingsSchema>;
export const DEFAULT_STANDING_RULES: StandingRulesSettings = StandingRulesSettingsSchema.parse({});

/** Whether a duration is within the account's longest (`until_revoked` is the longest of all). */
export function durationAllowed(d: RuleDuration, longest: RuleDuration): boolean {
  const ms = (x: RuleDuration) => RULE_DURATIONS[x] ?? Number.POSITIVE_INFINITY;
  return ms(d) <= ms(longest);
}

/** A policy file (policy as code): the version, the account's groups by hand, its rules. */
export const PolicyFileSchema = z.strictObject({
  version: z.literal(POLICY_VERSION),
  /** Group name → its people, kept by hand (the identity provider's members are not listed). */
  groups: z
    .record(
      z.string().regex(GROUP_NAME_PATTERN, "a group name: 1-63 characters of [a-z0-9._-]"),
      z.array(z.string().regex(/^human:[a-z0-9._-]{1,64}$/, "use human:<handle>")),
    )
    .optional(),
  rules: RulesSchema.default([]),
  /** Standing rules (docs/policies.md "Standing rules"); absent: the defaults. */
  standing_rules: StandingRulesSettingsSchema.optional(),
});

export type Match = z.infer<typeof MatchSchema>;
export type Rule = z.infer<typeof RuleSchema>;
export type PolicyFile = z.infer<typeof PolicyFileSchema>;

/** `*`, `**` and `?` over an agent id, anchored; every other character literal. */
export function agentGlob(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*" && glob[i + 1] === "*") {
      out += ".*";
      i++;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "u");
}
