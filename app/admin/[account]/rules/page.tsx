import { StandingRulesTable } from "@/components/StandingRulesTable";
import { adminPage } from "@/lib/next/admin-page";
import { standingRulesSettings } from "@/lib/policies/store";
import { listRules } from "@/lib/standing-rules/store";
import { revokeRuleAction } from "./actions";

export const dynamic = "force-dynamic";

/** Every standing rule of the account, by everyone (docs/policies.md "Standing rules"); owners and admins revoke. */
export default async function AccountRulesPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/rules`);
  const [rules, settings] = await Promise.all([listRules(seat.accountId), standingRulesSettings(seat.accountId)]);
  return (
    <main>
      <section className="panel">
        <h2>Standing rules</h2>
        <p className="hint" data-testid="rules-settings">
          {settings.enabled
            ? `People may make standing rules lasting at most ${settings.longest === "until_revoked" ? "until revoked" : settings.longest}; a rule stops itself after ${settings.answers_per_hour} answers in an hour.`
            : "Standing rules are off: the approval policy's standing_rules.enabled is false."}{" "}
          The policy file&apos;s <code>standing_rules</code> sets this (Policy tab).
        </p>
        <StandingRulesTable rules={rules} account={seat.slug} revoke={revokeRuleAction} showCreator />
      </section>
    </main>
  );
}
