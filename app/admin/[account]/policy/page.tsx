import { utc } from "@/components/time";
import { When } from "@/components/When";
import { adminPage } from "@/lib/next/admin-page";
import { exportPolicy, readPolicy } from "@/lib/policies/store";
import { recentAsks } from "@/lib/policies/tester";
import { policyToYaml } from "@/lib/policies/yaml";
import { PolicyWorkbench } from "./_components/policy-workbench";
import { RuleView } from "./_components/rule-words";

export const dynamic = "force-dynamic";

/**
 * The account's approval policy (docs/policies.md): its revision, who applied it and when, its rules
 * in words and as the policy file; owners edit and apply the file (checked whole, every problem on
 * its line), owners and admins test an ask against it (docs/admin.md "Policy").
 */
export default async function PolicyPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/policy`);
  const isOwner = seat.role === "owner";
  const [policy, file, recent] = await Promise.all([
    readPolicy(seat.accountId),
    exportPolicy(seat.accountId),
    recentAsks(seat.accountId),
  ]);
  const yaml = policyToYaml(
    file,
    `The approval policy of ${seat.slug}, revision ${policy.revision}.\nApply it back unchanged: nothing changes.`,
  );
  return (
    <main>
      <section className="panel" data-testid="policy-summary">
        <h2>Approval policy</h2>
        <p className="hint">
          Who is asked to answer the asks and tasks of {seat.slug}&apos;s agents. Each rule matches asks on what they
          say; every matching rule applies, and together they ask only the people <em>every</em> matching rule names — a
          policy narrows who may answer, never widens it, and under a matching rule only people answer, never an agent.
          A condition on the agent&apos;s id is attested by the Hub from the agent&apos;s key; the others are what the
          agent says about its message, so they can add a rule but never escape one on its id. Messages addressed to an
          agent (<code>to</code>) and notifies are not governed.
        </p>
        <p data-testid="policy-revision" data-revision={policy.revision}>
          {policy.revision === 0 ? (
            <>Never applied (revision 0).</>
          ) : (
            <>
              Revision <strong>{policy.revision}</strong>, applied by <code>{policy.updatedBy}</code>{" "}
              <When at={policy.updatedAt} />.
            </>
          )}
        </p>
        {policy.rules.length === 0 ? (
          <p data-testid="policy-default">
            <strong>No rules: the default policy</strong> — every answering member is asked. Owners, admins and members
            (viewers only read) may answer each ask and task, or only the people an ask lists in its{" "}
            <code>allowed_resolvers</code>; the agents §9.1 allows may answer too.
          </p>
        ) : (
          <>
            <p>
              {policy.rules.length} rule{policy.rules.length > 1 ? "s" : ""}. An ask that no rule matches follows the
              default: every answering member is asked.
            </p>
            <div data-testid="policy-rules">
              {policy.rules.map((r) => (
                <RuleView key={r.name} rule={r} />
              ))}
            </div>
          </>
        )}
      </section>
      {!isOwner && (
        <section className="panel" data-testid="policy-file">
          <h2>Policy file</h2>
          <p className="muted" data-testid="policy-owner-only">
            Only an owner of {seat.slug} can apply a policy file. You can test asks against the applied policy below.
          </p>
          <pre className="policy-yaml" data-testid="policy-export">
            {yaml}
          </pre>
        </section>
      )}
      <PolicyWorkbench
        slug={seat.slug}
        isOwner={isOwner}
        initialYaml={yaml}
        recent={recent.map((r) => ({
          id: r.id,
          label: `${r.title} — ${r.type} from agent:${r.agentId}, ${utc(r.createdAt.toISOString())}`,
        }))}
      />
    </main>
  );
}
