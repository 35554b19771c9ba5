/**
 * A policy rule in words, for the policy page's list and its tester: what it matches on — each
 * condition marked as attested by the Hub (the key's agent id) or asserted by the agent in its
 * message (docs/policies.md: those can only narrow a rule on the agent's id) — who it asks, and
 * whether mail may carry one-click answers. Pure rendering of props; the server page and the tester
 * (a client component) both use it.
 */
import type { ReactNode } from "react";
import type { Match, Rule } from "@/lib/policies/model";

interface Condition {
  key: string;
  attested: boolean;
  text: ReactNode;
}

const codes = (list: readonly string[], joiner: string): ReactNode =>
  list.map((v, i) => (
    <span key={v}>
      {i > 0 && (i === list.length - 1 ? ` ${joiner} ` : ", ")}
      <code>{v}</code>
    </span>
  ));

/** The rule's conditions, in the order the evaluation checks them. */
export function conditionsOf(m: Match): Condition[] {
  const out: Condition[] = [];
  if (m.agent !== undefined)
    out.push({
      key: "agent",
      attested: true,
      text: (
        <>
          the agent&apos;s id matches <code>{m.agent}</code>
        </>
      ),
    });
  if (m.project !== undefined)
    out.push({
      key: "project",
      attested: false,
      text: (
        <>
          its project (<code>agent.project</code>) is <code>{m.project}</code>
        </>
      ),
    });
  if (m.tags_any !== undefined)
    out.push({ key: "tags_any", attested: false, text: <>it is tagged {codes(m.tags_any, "or")}</> });
  if (m.tags_all !== undefined)
    out.push({ key: "tags_all", attested: false, text: <>it is tagged all of {codes(m.tags_all, "and")}</> });
  if (m.labels !== undefined)
    out.push({
      key: "labels",
      attested: false,
      text: (
        <>
          its <code>agent.labels</code> say{" "}
          {codes(
            Object.entries(m.labels).map(([k, v]) => `${k}=${v}`),
            "and",
          )}
        </>
      ),
    });
  if (m.priority !== undefined)
    out.push({
      key: "priority",
      attested: false,
      text: (
        <>
          its priority is <code>{m.priority}</code>
          {m.priority === "urgent" ? "" : " or higher"}
        </>
      ),
    });
  if (m.verb !== undefined)
    out.push({
      key: "verb",
      attested: false,
      text: <>it is {m.verb.length > 1 ? "an ask or a task" : `a${m.verb[0] === "ask" ? "n" : ""} ${m.verb[0]}`}</>,
    });
  if (m.mode !== undefined)
    out.push({ key: "mode", attested: false, text: <>it is an ask in mode {codes(m.mode, "or")}</> });
  return out;
}

/** Who asserts a condition: the Hub (from the key) or the agent (in its message). */
function Source({ attested }: { attested: boolean }) {
  return attested ? (
    <span className="policy-src policy-src-attested" data-testid="condition-attested">
      attested by the Hub
    </span>
  ) : (
    <span className="policy-src" data-testid="condition-asserted">
      asserted by the agent
    </span>
  );
}

export function Conditions({ match }: { match: Match }) {
  const list = conditionsOf(match);
  if (list.length === 0) return <p data-testid="rule-matches-all">Matches every ask and task.</p>;
  return (
    <ul className="policy-conditions" data-testid="rule-conditions">
      {list.map((c) => (
        <li key={c.key} data-testid="rule-condition" data-key={c.key}>
          {c.text} <Source attested={c.attested} />
        </li>
      ))}
    </ul>
  );
}

/** A rule's quorum keys in words (docs/policies.md "Quorum"), or null when it has none. */
export function quorumWords(rule: Rule): string | null {
  const parts: string[] = [];
  if ((rule.approvals ?? 1) > 1) parts.push(`${rule.approvals} people must give the same answer`);
  if (rule.require_from !== undefined) parts.push(`at least one of them from group ${rule.require_from}`);
  if (rule.exclude_sponsors) parts.push("never the agent's sponsors");
  if (rule.veto) parts.push("one deny ends it");
  return parts.length === 0 ? null : parts.join("; ");
}

/** One rule: its name, description, conditions, who it asks and its mail setting. */
export function RuleView({ rule, testId = "policy-rule" }: { rule: Rule; testId?: string }) {
  return (
    <div className="policy-rule" data-testid={testId} data-rule={rule.name}>
      <h3>
        <code>{rule.name}</code>
      </h3>
      {rule.description && <p data-testid="rule-description">{rule.description}</p>}
      <p className="policy-label">Applies when all of these hold:</p>
      <Conditions match={rule.match} />
      <p>
        <span className="policy-label">Asks:</span>{" "}
        <span data-testid="rule-assign">
          {rule.assign.map((a, i) => (
            <span key={a}>
              {i > 0 && ", "}
              <code>{a}</code>
            </span>
          ))}
        </span>
      </p>
      {quorumWords(rule) && (
        <p data-testid="rule-quorum">
          <span className="policy-label">Approvals:</span> {quorumWords(rule)}
        </p>
      )}
      {rule.escalate_after && rule.escalate_to && (
        <p data-testid="rule-escalation">
          <span className="policy-label">Escalation:</span> nobody has answered after {rule.escalate_after}:{" "}
          <code>{rule.escalate_to}</code> is assigned and told
        </p>
      )}
      <p data-testid="rule-email-answers">
        <span className="policy-label">Answers from mail:</span>{" "}
        {rule.email_answers === false
          ? "no — notification mail links to the item page, where the person signs in to answer"
          : "allowed (one-click answers, as the account's notification settings say)"}
      </p>
    </div>
  );
}
