/**
 * `ma2h-hub user delegate|delegations`: a person's out-of-office delegation, set by the operator
 * (docs/policies.md "Delegation"; the person sets their own on their settings page). Audited as
 * `system:cli`.
 */
import { type Command, type Flags, usageError } from "./command";

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (v === undefined || v === "") throw usageError(`--${name} is required`);
  return v;
}

/** An instant from a flag: ISO-8601 with a time zone (`2026-12-24T00:00:00Z`), or `now`. */
function instant(flags: Flags, name: string, fallback?: Date): Date {
  const raw = flags[name];
  if (raw === undefined || raw === "") {
    if (fallback) return fallback;
    throw usageError(`--${name} is required`);
  }
  if (raw === "now") return new Date();
  if (!/(Z|[+-]\d\d:?\d\d)$/.test(raw) || Number.isNaN(Date.parse(raw)))
    throw usageError(`--${name}: an ISO-8601 time with its zone (2026-12-24T09:00:00Z), or now`);
  return new Date(raw);
}

const handleOf = (ref: string) => ref.replace(/^human:/, "");

const delegationJson = (d: { delegator: string; delegate: string; startsAt: Date; endsAt: Date; active: boolean }) => ({
  delegator: `human:${d.delegator}`,
  delegate: `human:${d.delegate}`,
  starts_at: d.startsAt.toISOString(),
  ends_at: d.endsAt.toISOString(),
  active: d.active,
});

const delegationText = (d: { delegator: string; delegate: string; startsAt: Date; endsAt: Date; active: boolean }) =>
  `${d.delegator} → ${d.delegate} from ${d.startsAt.toISOString()} until ${d.endsAt.toISOString()}${d.active ? " (active)" : ""}`;

export const DELEGATION_COMMANDS: Record<string, Command> = {
  "user delegate": {
    usage: "user delegate <handle> --account <slug> (--to <handle> [--from <time|now>] --until <time> | --clear)",
    args: 1,
    async run([who], f) {
      const slug = need(f, "account");
      const { findAccount } = await import("../lib/principals/accounts");
      const account = await findAccount(slug);
      const { CLI_ACTOR } = await import("../lib/principals/admin-scope");
      const delegator = handleOf(who!);
      if (f.clear === "true") {
        if (f.to !== undefined) throw usageError("--clear takes no --to");
        const { clearDelegation } = await import("../lib/delegation/store");
        const cleared = await clearDelegation(account.id, delegator, CLI_ACTOR);
        return {
          json: { delegation: null, cleared },
          text: cleared ? `${delegator} no longer delegates in ${slug}` : `${delegator} had no delegation in ${slug}`,
        };
      }
      const { setDelegation } = await import("../lib/delegation/store");
      const d = await setDelegation({
        accountId: account.id,
        delegator,
        delegate: handleOf(need(f, "to")),
        startsAt: instant(f, "from", new Date()),
        endsAt: instant(f, "until"),
        actor: CLI_ACTOR,
      });
      return { json: { delegation: delegationJson(d) }, text: delegationText(d) };
    },
  },
  "user delegations": {
    usage: "user delegations --account <slug>",
    args: 0,
    async run(_args, f) {
      const slug = need(f, "account");
      const { findAccount } = await import("../lib/principals/accounts");
      const { listDelegations } = await import("../lib/delegation/store");
      const list = await listDelegations((await findAccount(slug)).id);
      return {
        json: { delegations: list.map(delegationJson) },
        text: list.map(delegationText).join("\n") || `no delegations in ${slug}`,
      };
    },
  },
};
