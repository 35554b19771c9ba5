import Link from "next/link";
import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { requireHuman } from "@/lib/next/current-human";
import { delegateChoices, delegationOf, listDelegations } from "@/lib/delegation/store";
import { seatsOf } from "@/lib/principals/seats";
import { RESOLVING_ROLES } from "@/lib/principals/types";
import { clearDelegationAction, setDelegationAction } from "./actions";

export const dynamic = "force-dynamic";

/**
 * Out of office (docs/policies.md "Delegation"): per account, whom the person's asks go to while
 * they are away, and for when; and whose asks they answer now.
 */
export default async function DelegationPage() {
  const human = await requireHuman("/settings/delegation");
  const seats = (await seatsOf(human.userId)).filter((s) => RESOLVING_ROLES.includes(s.role));
  const rows = await Promise.all(
    seats.map(async (s) => ({
      seat: s,
      mine: await delegationOf(s.accountId, s.handle),
      choices: await delegateChoices(s.accountId, s.handle),
      forOthers: (await listDelegations(s.accountId, s.handle)).filter((d) => d.endsAt > new Date()),
    })),
  );
  return (
    <main>
      <section className="panel">
        <h1>Out of office</h1>
        <p className="hint">
          While you are away, the person you name answers in your place the asks the account's approval policy assigns
          to you, and is told of them. Their answer is signed as theirs, “for you” on the item and in the audit; it
          never counts twice with yours. An ask that names its own resolvers (allowed_resolvers) only tells them. Times
          are UTC. See <Link href="/inbox">the inbox</Link> for the asks themselves.
        </p>
        {rows.length === 0 && (
          <p className="empty" data-testid="delegation-empty">
            You answer asks in no account, so there is nothing to delegate.
          </p>
        )}
      </section>
      {rows.map(({ seat, mine, choices, forOthers }) => (
        <section className="panel" key={seat.accountId} data-testid={`delegation-${seat.slug}`}>
          <h2>{seat.slug}</h2>
          {mine ? (
            <p data-testid="delegation-current">
              <strong>{mine.delegate}</strong> answers for you from <When at={mine.startsAt} /> until{" "}
              <When at={mine.endsAt} />
              {mine.active ? " (now)" : mine.endsAt <= new Date() ? " (ended)" : " (not yet)"}.
            </p>
          ) : (
            <p className="muted" data-testid="delegation-none">
              Nobody answers for you in {seat.slug}.
            </p>
          )}
          {choices.length === 0 ? (
            <p className="muted">Nobody else in {seat.slug} answers asks.</p>
          ) : (
            <ActionForm
              action={setDelegationAction}
              hidden={{ account: seat.slug }}
              submit={mine ? "Replace" : "Set"}
              testId={`set-delegation-${seat.slug}`}
            >
              <label>
                Delegate{" "}
                <select name="delegate" required defaultValue={mine?.delegate} data-testid="delegation-delegate">
                  {choices.map((h) => (
                    <option key={h} value={h}>
                      {h}
                    </option>
                  ))}
                </select>
              </label>{" "}
              <label>
                From (UTC, blank: now) <input type="datetime-local" name="from" data-testid="delegation-from" />
              </label>{" "}
              <label>
                Until (UTC) <input type="datetime-local" name="until" required data-testid="delegation-until" />
              </label>
            </ActionForm>
          )}
          {mine && (
            <ActionForm
              action={clearDelegationAction}
              hidden={{ account: seat.slug }}
              submit="End delegation"
              danger
              testId={`clear-delegation-${seat.slug}`}
            />
          )}
          {forOthers.length > 0 && (
            <p data-testid="delegation-for-others">
              You answer for{" "}
              {forOthers.map((d, i) => (
                <span key={d.delegator}>
                  {i > 0 ? ", " : ""}
                  <strong>{d.delegator}</strong> until <When at={d.endsAt} />
                  {d.active ? "" : " (not yet)"}
                </span>
              ))}
              .
            </p>
          )}
        </section>
      ))}
    </main>
  );
}
