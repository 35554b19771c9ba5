/**
 * A list of standing rules (docs/policies.md "Standing rules") — active, shadow, expired, stopped,
 * revoked — with who set each, its scope in words, its answers (and shadow counts) and a Revoke
 * form for the ones still live. Shared by a person's settings page and the account's admin page.
 */
import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import type { ActionState } from "@/lib/next/action-state";
import type { RuleInfo } from "@/lib/standing-rules/store";

type Action = (prev: ActionState, form: FormData) => Promise<ActionState>;

export function StandingRulesTable({
  rules,
  account,
  revoke,
  showCreator,
}: {
  rules: RuleInfo[];
  account: string;
  revoke: Action;
  showCreator: boolean;
}) {
  if (rules.length === 0)
    return (
      <p className="empty" data-testid="rules-empty">
        No standing rules.
      </p>
    );
  return (
    <table className="admin-table" data-testid="rules-table">
      <thead>
        <tr>
          <th>Rule</th>
          {showCreator && <th>Set by</th>}
          <th>Answers</th>
          <th>State</th>
          <th>Until</th>
          <th>Answered</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rules.map((r) => (
          <tr key={r.id} data-testid="rule-row" data-rule={r.id} data-state={r.state}>
            <td>
              <code>{r.id}</code>
            </td>
            {showCreator && <td>human:{r.creator}</td>}
            <td>{r.words}</td>
            <td data-testid="rule-state">
              {r.state}
              {r.state === "stopped" && ` (over ${r.hourlyCap} answers in an hour)`}
            </td>
            <td>{r.expiresAt ? <When at={r.expiresAt} /> : "until revoked"}</td>
            <td data-testid="rule-hits">
              {r.hits}
              {r.shadowHits > 0 && ` (${r.shadowHits} would have, in shadow mode)`}
            </td>
            <td>
              {(r.state === "active" || r.state === "shadow") && (
                <ActionForm
                  action={revoke}
                  hidden={{ account, rule: r.id }}
                  submit="Revoke"
                  danger
                  testId={`revoke-rule-${r.id}`}
                  className="inline-form"
                />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
