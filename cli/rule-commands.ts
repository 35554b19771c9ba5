/**
 * `ma2h-hub rule list|revoke`: an account's standing rules (docs/policies.md "Standing rules"), for
 * the operator. A revoke is audited as `system:cli`.
 */
import { type Command, type Flags, usageError } from "./command";
import type { RuleInfo } from "../lib/standing-rules/store";

function account(flags: Flags): string {
  const v = flags.account;
  if (v === undefined || v === "") throw usageError("--account is required");
  return v;
}

const ruleJson = (r: RuleInfo) => ({
  id: r.id,
  actor: r.actor,
  set_by: `human:${r.creator}`,
  scope: {
    agent: r.scope.agentId,
    mode: r.scope.mode,
    options: r.scope.options,
    value: r.scope.value,
    project: r.scope.project,
    tags: r.scope.tags,
    title_pattern: r.scope.titlePattern,
  },
  state: r.state,
  shadow: r.shadow,
  created_at: r.createdAt.toISOString(),
  expires_at: r.expiresAt?.toISOString() ?? null,
  answers: r.hits,
  shadow_answers: r.shadowHits,
  answers_per_hour: r.hourlyCap,
});

const ruleText = (r: RuleInfo) =>
  `${r.id} ${r.state} by ${r.creator}: ${r.words} (${r.hits} answered${r.shadowHits ? `, ${r.shadowHits} in shadow mode` : ""})`;

export const RULE_COMMANDS: Record<string, Command> = {
  "rule list": {
    usage: "rule list --account <slug>",
    args: 0,
    async run(_args, f) {
      const slug = account(f);
      const { findAccount } = await import("../lib/principals/accounts");
      const { listRules } = await import("../lib/standing-rules/store");
      const rules = await listRules((await findAccount(slug)).id);
      return {
        json: { rules: rules.map(ruleJson) },
        text: rules.map(ruleText).join("\n") || `no standing rules in ${slug}`,
      };
    },
  },
  "rule revoke": {
    usage: "rule revoke <id> --account <slug>",
    args: 1,
    async run([id], f) {
      const slug = account(f);
      const { findAccount } = await import("../lib/principals/accounts");
      const { revokeRule } = await import("../lib/standing-rules/store");
      const { CLI_ACTOR } = await import("../lib/principals/admin-scope");
      const r = await revokeRule((await findAccount(slug)).id, id!, { actor: CLI_ACTOR });
      return { json: { rule: ruleJson(r) }, text: `${r.id} revoked` };
    },
  },
};
