import { AuditTable } from "@/components/AuditTable";
import Link from "next/link";
import { listPersonAudit } from "@/lib/audit/log";
import { personActor } from "@/lib/audit/write";
import { requireHuman } from "@/lib/next/current-human";

export const dynamic = "force-dynamic";

const PAGE = 50;

/**
 * The person's own audit stream, newest first: their tokens, sign-in identities and notification
 * preferences. No account's admin sees these; only the person, here.
 */
export default async function ActivityPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const human = await requireHuman("/settings/activity");
  const q = await searchParams;
  const before = typeof q.before === "string" ? q.before : undefined;
  const page = await listPersonAudit(human.userId, { before, limit: PAGE });
  const self = personActor(human.userId);
  return (
    <main>
      <section className="panel">
        <h1>Activity</h1>
        <p className="hint">
          What happened to your own tokens, sign-in identities, notification preferences, Slack links and push devices.
          Only you see this list.
        </p>
        {page.entries.length === 0 ? (
          <p className="empty">Nothing yet.</p>
        ) : (
          <AuditTable
            entries={page.entries}
            testId="activity"
            actorLabel={(actor) => (actor === self ? "you" : <code>{actor}</code>)}
            headings={{ actor: "By", object: "Detail" }}
          />
        )}
        {page.next && (
          <p className="pager">
            <Link
              prefetch={false}
              href={`/settings/activity?before=${encodeURIComponent(page.next)}`}
              data-testid="activity-older"
            >
              Older entries →
            </Link>
          </p>
        )}
      </section>
    </main>
  );
}
