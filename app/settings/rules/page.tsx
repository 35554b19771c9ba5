import { StandingRulesTable } from "@/components/StandingRulesTable";
import { requireHuman } from "@/lib/next/current-human";
import { seatsOf } from "@/lib/principals/seats";
import { listRules } from "@/lib/standing-rules/store";
import { revokeOwnRuleAction } from "./actions";

export const dynamic = "force-dynamic";

/** The person's own standing rules, per account (docs/policies.md "Standing rules"). */
export default async function RulesPage() {
  const human = await requireHuman("/settings/rules");
  const seats = await seatsOf(human.userId);
  const rows = await Promise.all(seats.map(async (s) => ({ seat: s, rules: await listRules(s.accountId, s.handle) })));
  return (
    <main>
      <section className="panel">
        <h1>Standing rules</h1>
        <p className="hint">
          The rules you made with “Answer and remember” on an ask. A rule answers the next asks its scope covers with
          its answer, signed as the rule (<code>system:rule/…</code>) with your name on it — never as you — while you
          may still answer them yourself. Revoke one to stop it at once.
        </p>
      </section>
      {rows.map(({ seat, rules }) => (
        <section className="panel" key={seat.accountId} data-testid={`rules-${seat.slug}`}>
          <h2>{seat.slug}</h2>
          <StandingRulesTable rules={rules} account={seat.slug} revoke={revokeOwnRuleAction} showCreator={false} />
        </section>
      ))}
    </main>
  );
}
