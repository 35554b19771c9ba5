import Link from "next/link";
import { requireHuman } from "@/lib/next/current-human";
import { LiveRefresh } from "@/components/LiveRefresh";
import { PRIORITIES, STATUSES, VERBS, parseFilters, type InboxFilters } from "@/lib/inbox/filters";
import { listInbox, type InboxPage as InboxListPage } from "@/lib/inbox/list";
import { waitingForRows } from "@/lib/inbox/response-track";
import { FiltersBar, type Facet } from "./_components/filters-bar";
import { InboxList } from "./_components/inbox-list";
import { PendingInvitations } from "./_components/invitations";
import { PushControl } from "./_components/push-control";

export const dynamic = "force-dynamic";
export const metadata = { title: "Inbox · MA2H Hub" };

type Search = Record<string, string | string[] | undefined>;

function options(counts: Record<string, number>, order: readonly string[] | null, selected: string | undefined) {
  const keys = order ? order.filter((k) => counts[k] !== undefined || k === selected) : Object.keys(counts).sort();
  if (selected !== undefined && !keys.includes(selected)) keys.push(selected);
  return keys.map((k) => ({ value: k, label: k, count: counts[k] ?? 0 }));
}

function facets(page: InboxListPage, f: InboxFilters): Facet[] {
  const c = page.counts;
  const out: Facet[] = [
    { key: "verb", label: "Verb", testId: "filter-verb", options: options(c.verb, VERBS, f.verb) },
    { key: "status", label: "Status", testId: "filter-status", options: options(c.status, STATUSES, f.status) },
    {
      key: "priority",
      label: "Priority",
      testId: "filter-priority",
      options: options(c.priority, PRIORITIES, f.priority),
    },
    { key: "agent", label: "Agent", testId: "filter-agent", options: options(c.agent, null, f.agent) },
    { key: "project", label: "Project", testId: "filter-project", options: options(c.project, null, f.project) },
    {
      key: "tag",
      label: "Tag",
      testId: "filter-tag",
      options: options(
        Object.fromEntries(c.tag),
        c.tag.map(([t]) => t),
        f.tag,
      ),
    },
  ];
  if (page.seats.length > 1)
    out.unshift({
      key: "account",
      label: "Account",
      testId: "filter-account",
      options: options(
        c.account,
        page.seats.map((s) => s.slug),
        f.account,
      ),
    });
  return out;
}

function withParam(search: Search, key: string, value: string | null): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(search)) if (typeof v === "string" && k !== key) p.set(k, v);
  if (value !== null) p.set(key, value);
  const qs = p.toString();
  return qs ? `/inbox?${qs}` : "/inbox";
}

export default async function InboxPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const human = await requireHuman(withParam(search, "after", null));
  const filters = parseFilters(search);
  const after = typeof search.after === "string" ? search.after : null;
  const page = await listInbox(human.userId, filters, { after });
  const waiting = await waitingForRows(page.rows); // §15.4 beside pending asks/tasks
  const open = page.counts.status.open ?? 0;
  return (
    <main className="inbox">
      <div className="inbox-head">
        <h1>
          Inbox{" "}
          <span className="count">
            {filters.status === undefined || filters.status === "open" ? `${open} open` : `${page.total}`}
          </span>
        </h1>
        <span className="total">{page.total} shown by these filters</span>
        <PushControl />
      </div>
      <PendingInvitations userId={human.userId} />
      <FiltersBar facets={facets(page, filters)} q={filters.q ?? ""} />
      <InboxList rows={page.rows} multiAccount={page.seats.length > 1} waiting={waiting} />
      <nav className="pager" aria-label="Pages">
        {after && (
          <Link prefetch={false} href={withParam(search, "after", null)}>
            « First page
          </Link>
        )}
        {page.next && (
          <Link prefetch={false} href={withParam(search, "after", page.next)}>
            Next page »
          </Link>
        )}
      </nav>
      <LiveRefresh />
    </main>
  );
}
