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
});

export const RulesSchema = z
  .array(RuleSchema)
  .max(MAX_RULES)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((r, i) => {
      if (seen.has(r.name))
        ctx.addIssue({ code: "custom", path: [i, "name"], message: `a second rule named ${r.name}` });
      seen.add(r.name);
    });
  });

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
