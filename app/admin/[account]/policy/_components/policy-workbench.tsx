"use client";
/**
 * The policy page's forms: the policy file's editor (owners: Check is a dry run showing the diff,
 * Apply applies it and shows the diff and the new revision; a file with problems shows them with
 * their line and column and changes nothing) and the tester (owners and admins: a pasted envelope
 * or one of the account's recent asks, against the applied policy or — owners — the editor's draft).
 * The fields are controlled and the actions called by hand, so a result never resets the text.
 */
import { type FormEvent, useState, useTransition } from "react";
import { describeEscalation, describeQuorum } from "@/lib/policies/quorum-words";
import type { PolicyDiff } from "@/lib/policies/store";
import {
  applyPolicyAction,
  checkPolicyAction,
  type EditState,
  type TestDone,
  type TestState,
  testPolicyAction,
} from "../actions";
import { RuleView } from "./rule-words";

export interface RecentOption {
  id: string;
  label: string;
}

export function PolicyWorkbench({
  slug,
  isOwner,
  initialYaml,
  recent,
}: {
  slug: string;
  isOwner: boolean;
  initialYaml: string;
  recent: RecentOption[];
}) {
  const [yaml, setYaml] = useState(initialYaml);
  return (
    <>
      {isOwner && <Editor slug={slug} yaml={yaml} setYaml={setYaml} />}
      <Tester slug={slug} canDraft={isOwner} yaml={yaml} recent={recent} />
    </>
  );
}

/**
 * An action's last result and a way to run it. Not useActionState: that sends the previous result
 * back with every call, and a result holding one value twice (the tester's people) is encoded as a
 * reference the Hub's request guard refuses (server/action-reply.ts); these actions need no
 * previous state.
 */
function useAction<S>(action: (prev: null, form: FormData) => Promise<S>) {
  const [state, setState] = useState<S | null>(null);
  const [pending, startTransition] = useTransition();
  const run = (form: FormData) =>
    startTransition(async () => {
      const next = await action(null, form);
      startTransition(() => setState(next));
    });
  return [state, run, pending] as const;
}

function submitWith(e: FormEvent<HTMLFormElement>, run: (f: FormData) => void, extra: Record<string, string>) {
  e.preventDefault();
  const form = new FormData(e.currentTarget);
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  run(form);
}

function Editor({ slug, yaml, setYaml }: { slug: string; yaml: string; setYaml: (v: string) => void }) {
  const [checked, check, checking] = useAction(checkPolicyAction);
  const [applied, apply, applying] = useAction(applyPolicyAction);
  const [last, setLast] = useState<"check" | "apply">("check");
  const state: EditState | null = last === "apply" ? applied : checked;
  const pending = checking || applying;
  return (
    <section className="panel" data-testid="policy-editor">
      <h2>Edit the policy file</h2>
      <p className="hint">
        The whole file is applied at once: its rules replace the account&apos;s, and each group it lists gets exactly
        those people by hand (groups it does not list, and members from the identity provider, are left alone).{" "}
        <strong>Check</strong> shows what applying would change without changing anything. A change applies to asks
        submitted after it; open asks keep the routing recorded when they were submitted.
      </p>
      <form
        className="policy-form"
        data-testid="policy-form"
        onSubmit={(e) => {
          const which = (e.nativeEvent as SubmitEvent).submitter?.getAttribute("value") === "apply" ? "apply" : "check";
          setLast(which);
          submitWith(e, which === "apply" ? apply : check, { account: slug, yaml });
        }}
      >
        <label className="policy-label" htmlFor="policy-yaml">
          Policy file (YAML)
        </label>
        <textarea
          id="policy-yaml"
          name="yaml"
          className="policy-yaml"
          rows={Math.min(30, Math.max(10, yaml.split("\n").length + 1))}
          spellCheck={false}
          value={yaml}
          onChange={(e) => setYaml(e.target.value)}
          data-testid="policy-yaml"
        />
        <div className="policy-buttons">
          <button type="submit" value="check" className="btn" disabled={pending} data-testid="policy-check">
            Check
          </button>
          <button type="submit" value="apply" className="btn btn-primary" disabled={pending} data-testid="policy-apply">
            Apply
          </button>
        </div>
      </form>
      {state && !state.ok && (
        <div role="alert" className="notice notice-warn" data-testid="policy-edit-error">
          <p>{state.error}</p>
          {state.problems && (
            <pre className="policy-problems" data-testid="policy-problems">
              {state.problems}
            </pre>
          )}
        </div>
      )}
      {state?.ok && (
        <div
          role="status"
          className="notice notice-ok"
          data-testid="policy-edit-ok"
          data-dry-run={String(state.dryRun)}
        >
          <p data-testid="policy-edit-message">{state.message}</p>
          <Diff diff={state.diff} />
        </div>
      )}
    </section>
  );
}

function Diff({ diff }: { diff: PolicyDiff }) {
  const rows: Array<[string, string[]]> = [
    ["Rules added", diff.rules.added],
    ["Rules removed", diff.rules.removed],
    ["Rules changed", diff.rules.changed],
    ["Groups created", diff.groups.created.map((g) => `group:${g}`)],
    ["Put in a group", diff.groups.added.map((a) => `${a.person} → group:${a.group}`)],
    ["Taken out of a group", diff.groups.removed.map((a) => `${a.person} ✗ group:${a.group}`)],
  ];
  const shown = rows.filter(([, l]) => l.length > 0);
  if (shown.length === 0) return <p data-testid="policy-diff-none">No rule or group changes (the order may differ).</p>;
  return (
    <dl className="policy-diff" data-testid="policy-diff">
      {shown.map(([label, list]) => (
        <div key={label} data-testid="policy-diff-row" data-kind={label}>
          <dt>{label}</dt>
          <dd>{list.join(", ")}</dd>
        </div>
      ))}
    </dl>
  );
}

function Tester({
  slug,
  canDraft,
  yaml,
  recent,
}: {
  slug: string;
  canDraft: boolean;
  yaml: string;
  recent: RecentOption[];
}) {
  const [state, test, testing] = useAction<TestState>(testPolicyAction);
  const [source, setSource] = useState<"json" | "stored">("json");
  const [json, setJson] = useState("");
  const [ask, setAsk] = useState(recent[0]?.id ?? "");
  const [against, setAgainst] = useState<"applied" | "draft">("applied");
  return (
    <section className="panel" data-testid="policy-tester">
      <h2>Test an ask</h2>
      <p className="hint">
        Which rules match an ask or task, who may answer it and who is left out, and why — worked out by the function
        the Hub runs at each submit. A pasted message is tested as if its agent (<code>agent.id</code>) had submitted
        it.
      </p>
      <form
        className="policy-form"
        data-testid="policy-test-form"
        onSubmit={(e) => submitWith(e, test, { account: slug, ...(against === "draft" ? { yaml } : {}) })}
      >
        <fieldset>
          <legend>The ask</legend>
          <label className="policy-choice">
            <input
              type="radio"
              name="source"
              value="json"
              checked={source === "json"}
              onChange={() => setSource("json")}
              data-testid="test-source-json"
            />{" "}
            A message envelope (JSON), as an agent would submit it
          </label>
          {source === "json" && (
            <textarea
              name="json"
              className="policy-yaml"
              rows={10}
              spellCheck={false}
              value={json}
              onChange={(e) => setJson(e.target.value)}
              placeholder='{"ma2h_version": "0.6", "type": "ask", "agent": {"id": "deploybot/prod", …}, "title": …}'
              data-testid="test-json"
            />
          )}
          <label className="policy-choice">
            <input
              type="radio"
              name="source"
              value="stored"
              checked={source === "stored"}
              disabled={recent.length === 0}
              onChange={() => setSource("stored")}
              data-testid="test-source-stored"
            />{" "}
            {recent.length === 0
              ? "One of the account's asks and tasks (none yet)"
              : `One of the account's last ${recent.length} asks and tasks`}
          </label>
          {source === "stored" && (
            <select name="ask" value={ask} onChange={(e) => setAsk(e.target.value)} data-testid="test-ask">
              {recent.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.label}
                </option>
              ))}
            </select>
          )}
        </fieldset>
        <fieldset>
          <legend>Against</legend>
          <label className="policy-choice">
            <input
              type="radio"
              name="against"
              value="applied"
              checked={against === "applied"}
              onChange={() => setAgainst("applied")}
              data-testid="test-against-applied"
            />{" "}
            the applied policy
          </label>
          {canDraft && (
            <label className="policy-choice">
              <input
                type="radio"
                name="against"
                value="draft"
                checked={against === "draft"}
                onChange={() => setAgainst("draft")}
                data-testid="test-against-draft"
              />{" "}
              the file in the editor above, not applied
            </label>
          )}
        </fieldset>
        <div className="policy-buttons">
          <button type="submit" className="btn btn-primary" disabled={testing} data-testid="policy-test-submit">
            Test
          </button>
        </div>
      </form>
      {state && !state.ok && (
        <div role="alert" className="notice notice-warn" data-testid="policy-test-error">
          <p>{state.error}</p>
          {state.problems && (
            <pre className="policy-problems" data-testid="policy-test-problems">
              {state.problems}
            </pre>
          )}
        </div>
      )}
      {state?.ok && <TestResult done={state} />}
    </section>
  );
}

const people = (list: readonly string[]) => (list.length === 0 ? "nobody" : list.map((h) => `human:${h}`).join(", "));

function TestResult({ done }: { done: TestDone }) {
  const { result: r, against } = done;
  const f = r.facts;
  return (
    <div className="policy-result" data-testid="policy-test-result" data-against={against}>
      <p role="status" className="notice notice-ok" data-testid="policy-test-message">
        {done.message}
      </p>
      <p data-testid="test-ask-summary">
        {r.ask.type === "ask" ? "The ask" : "The task"} <q>{r.ask.title}</q> from <code>agent:{r.ask.agentId}</code>
        {r.ask.id && (
          <>
            {" "}
            (<code>{r.ask.id}</code>)
          </>
        )}
        , against {against === "draft" ? "the draft in the editor" : "the applied policy"}.
      </p>
      {!r.agentKnown && (
        <p className="notice notice-warn" data-testid="test-agent-unknown">
          <code>{r.ask.agentId}</code> is not an agent of this account: at submit the Hub takes the agent&apos;s id from
          its key.
        </p>
      )}
      <p className="hint" data-testid="test-facts">
        What the rules see: {f.verb}
        {f.mode ? ` in mode ${f.mode}` : ""}, priority {f.priority}
        {f.project ? `, project ${f.project}` : ""}
        {f.tags.length ? `, tags ${f.tags.join(", ")}` : ", no tags"}
        {Object.keys(f.labels).length
          ? `, labels ${Object.entries(f.labels)
              .map(([k, v]) => `${k}=${v}`)
              .join(", ")}`
          : ""}
        {f.allowedResolvers ? `; its allowed_resolvers: ${f.allowedResolvers.join(", ")}` : ""}.
      </p>
      {done.draftGroups.length > 0 && (
        <p className="notice notice-warn" data-testid="test-draft-groups">
          The draft lists groups ({done.draftGroups.map((g) => `group:${g}`).join(", ")}): the tester reads the
          account&apos;s groups as they are now; the draft&apos;s <code>groups:</code> take effect when it is applied.
        </p>
      )}
      <h3>Matching rules</h3>
      {r.matched.length === 0 ? (
        <p data-testid="test-default">
          None: the default policy. Every member who may answer (owners, admins, members) is asked — or, when the ask
          lists <code>allowed_resolvers</code>, the people it lists — and the agents §9.1 allows may answer too.
        </p>
      ) : (
        r.matched.map((rule) => <RuleView key={rule.name} rule={rule} testId="test-matched-rule" />)
      )}
      <h3>Who may answer</h3>
      <p data-testid="test-eligible">{people(r.eligible)}</p>
      {r.routing && r.eligible.length === 0 && (
        <p className="notice notice-warn" data-testid="test-refused">
          Nobody may answer: the Hub would refuse this submit (<code>422 invalid_field</code>, naming the matching
          rules), and store nothing.
        </p>
      )}
      {r.routing?.quorum && <p data-testid="test-quorum">Quorum: {describeQuorum(r.routing.quorum)}</p>}
      {r.routing?.escalation && (
        <p data-testid="test-escalation">Escalation: {describeEscalation(r.routing.escalation)}</p>
      )}
      {r.refusal !== null && r.eligible.length > 0 && (
        <p className="notice notice-warn" data-testid="test-quorum-refused">
          The Hub would refuse this submit (<code>422 invalid_field</code>): {r.refusal}. It stores nothing.
        </p>
      )}
      {r.routing && (
        <p className="hint">
          Only people: under a matching rule the submitting agent and every <code>agent:</code> entry lose the right to
          answer.
        </p>
      )}
      <p data-testid="test-email-answers">
        Answers from mail:{" "}
        {r.routing === null
          ? "as the account's notification settings say"
          : r.routing.email_answers
            ? "allowed"
            : "no — mail links to the item page"}
      </p>
      <h3>Left out</h3>
      {r.excluded.length === 0 ? (
        <p className="muted" data-testid="test-excluded-none">
          Nobody.
        </p>
      ) : (
        <table className="admin-table" data-testid="test-excluded">
          <thead>
            <tr>
              <th>Person</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {r.excluded.map((x) => (
              <tr key={x.handle} data-testid="test-excluded-row" data-handle={x.handle}>
                <td>
                  <code>human:{x.handle}</code>
                </td>
                <td>{x.reasons.join("; ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {r.recorded !== undefined && <Recorded recorded={r.recorded} now={r.routing} />}
    </div>
  );
}

function Recorded({ recorded, now }: { recorded: TestDone["result"]["routing"]; now: TestDone["result"]["routing"] }) {
  const same = JSON.stringify(recorded) === JSON.stringify(now);
  return (
    <div data-testid="test-recorded" data-same={String(same)}>
      <h3>Recorded at its submit</h3>
      {recorded === null ? (
        <p data-testid="test-recorded-routing">The default policy (no rule matched then).</p>
      ) : (
        <p data-testid="test-recorded-routing">
          Rules {recorded.rules.join(", ")}; may answer: {people(recorded.eligible)}; answers from mail:{" "}
          {recorded.email_answers ? "allowed" : "no"}.
        </p>
      )}
      <p className="hint">
        {same
          ? "The same as now."
          : "This differs from the result above: the policy or its groups changed since. The ask keeps what was recorded."}
      </p>
    </div>
  );
}
