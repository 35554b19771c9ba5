import { AuditTable } from "@/components/AuditTable";
import Link from "next/link";
import { auditFacets, listAudit, parseAuditFilters } from "@/lib/audit/log";
import { adminPage } from "@/lib/next/admin-page";

export const dynamic = "force-dynamic";

type Search = Record<string, string | string[] | undefined>;

/** `2026-12-02T18:00` for a datetime-local input (UTC, as the page labels it). */
function localValue(d: Date | undefined): string {
  return d ? d.toISOString().slice(0, 16) : "";
}

/**
 * The account's append-only audit trail, filterable by actor, kind and time, exportable as JSON Lines. A person's
 * own events (tokens, identities, preferences) are in their stream, not here (lib/audit/log.ts).
 */
export default async function AuditPage({
  params,
  searchParams,
}: {
  params: Promise<{ account: string }>;
  searchParams: Promise<Search>;
}) {
  const { account } = await params;
  const q = await searchParams;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/audit`);
  const filters = parseAuditFilters(q);
  const before = typeof q.before === "string" ? q.before : undefined;
  const [page, facets] = await Promise.all([
    listAudit(seat.accountId, filters, { before, limit: 100 }),
    auditFacets(seat.accountId),
  ]);
  const base = `/admin/${encodeURIComponent(seat.slug)}/audit`;
  const query = new URLSearchParams();
  if (filters.actor) query.set("actor", filters.actor);
  if (filters.event) query.set("kind", filters.event);
  if (filters.from) query.set("from", filters.from.toISOString());
  if (filters.to) query.set("to", filters.to.toISOString());
  const more = new URLSearchParams(query);
  if (page.next) more.set("before", page.next);
  return (
    <main>
      <section className="panel">
        <h2>Audit log</h2>
        <form method="get" action={base} className="audit-filters" data-testid="audit-filters">
          <label>
            Actor
            <input
              name="actor"
              list="audit-actors"
              defaultValue={filters.actor ?? ""}
              placeholder="human:alice"
              data-testid="audit-actor"
            />
            <datalist id="audit-actors">
              {facets.actors.map((a) => (
                <option key={a} value={a} />
              ))}
            </datalist>
          </label>
          <label>
            Kind
            <select name="kind" defaultValue={filters.event ?? ""} data-testid="audit-kind">
              <option value="">any</option>
              {[...new Set(facets.kinds.map((k) => `${k.split(".")[0]}.*`))].map((fam) => (
                <option key={fam} value={fam}>
                  {fam}
                </option>
              ))}
              {facets.kinds.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <label>
            From (UTC){" "}
            <input type="datetime-local" name="from" defaultValue={localValue(filters.from)} data-testid="audit-from" />
          </label>
          <label>
            To (UTC){" "}
            <input type="datetime-local" name="to" defaultValue={localValue(filters.to)} data-testid="audit-to" />
          </label>
          <button type="submit" className="btn btn-primary" data-testid="audit-apply">
            Filter
          </button>
          <Link prefetch={false} href={base} className="btn btn-quiet">
            Clear
          </Link>
          <a
            className="btn"
            href={`${base}/export${query.size ? `?${query}` : ""}`}
            data-testid="audit-export"
            download
          >
            Export JSON Lines
          </a>
        </form>
        {page.entries.length === 0 ? (
          <p className="empty">No entries match.</p>
        ) : (
          <AuditTable entries={page.entries} testId="audit" />
        )}
        {page.next && (
          <p className="pager">
            <Link prefetch={false} href={`${base}?${more}`} data-testid="audit-older">
              Older entries →
            </Link>
          </p>
        )}
      </section>
    </main>
  );
}
