import Link from "next/link";
import { requireHuman } from "@/lib/next/current-human";
import { LocalTime } from "@/components/Clock";
import { LiveRefresh } from "@/components/LiveRefresh";
import { PeriodicRefresh } from "@/components/PeriodicRefresh";
import { VERBS } from "@/lib/inbox/filters";
import {
  listTraffic,
  MAILBOX_STATES,
  parseInstant,
  parseTrafficFilters,
  RESOLUTION_STATUSES,
  type TrafficFilters,
} from "@/lib/inbox/traffic";
import { AgentStopControl } from "../_components/agent-stop";
import { agentHref } from "../_components/directive-table";
import { TrafficTable } from "../_components/traffic-table";

/** Session ends and stops send no inbox NOTIFY (§16): the page is re-read this often, like an agent's. */
const REFRESH_MS = 5000;

export const dynamic = "force-dynamic";
export const metadata = { title: "Agent traffic · MA2H Hub", referrer: "no-referrer" };

type Search = Record<string, string | string[] | undefined>;

function withAfter(search: Search, after: string | null): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(search)) if (typeof v === "string" && k !== "after") p.set(k, v);
  if (after !== null) p.set("after", after);
  const qs = p.toString();
  return qs ? `/inbox/traffic?${qs}` : "/inbox/traffic";
}

/** A bound as `<input type="datetime-local">` shows it (UTC, minutes), whatever form the URL had. */
function inputValue(s: string | undefined, end: "from" | "to"): string | undefined {
  return parseInstant(s, end)?.toISOString().slice(0, 16);
}

function Select({
  name,
  label,
  options,
  value,
}: {
  name: keyof TrafficFilters;
  label: string;
  options: readonly string[];
  value: string | undefined;
}) {
  return (
    <label className="filter">
      <span className="filter-label">{label}</span>
      <select name={name} defaultValue={value ?? ""} data-testid={`traffic-filter-${name}`}>
        <option value="">All</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Agent traffic (§8.7.1 "Human visibility"): the addressed messages between the agents of the
 * person's accounts — out of the triage inbox, readable and auditable here by every seat, viewers
 * included. Like the directives page it spans every account the person sits in (an Account filter
 * narrows). Owners and admins can stop either side of an exchange (§16.4.1): the same control and
 * server action as the agent's page.
 */
export default async function TrafficPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const human = await requireHuman(withAfter(search, null));
  const filters = parseTrafficFilters(search);
  const after = typeof search.after === "string" ? search.after : null;
  const page = await listTraffic(human.userId, filters, { after });
  const multiAccount = page.seats.length > 1;
  const stopped = new Set(page.agents.filter((a) => a.stopped).map((a) => `${a.account}\u0000${a.agentId}`));
  return (
    <main className="directives-page traffic-page">
      <nav className="crumbs">
        <Link prefetch={false} href="/inbox">
          ← Inbox
        </Link>
        <Link prefetch={false} href="/inbox/directives">
          Directives
        </Link>
      </nav>
      <h1>Agent traffic</h1>
      <p className="hint">
        Messages your accounts' agents address to each other. They stay out of the inbox: agents handle them, and people
        resolve one only when it lists them in its <code>allowed_resolvers</code>.
      </p>
      <form className="filters" method="get" action="/inbox/traffic" data-testid="traffic-filters">
        {multiAccount && (
          <Select name="account" label="Account" options={page.seats.map((s) => s.slug)} value={filters.account} />
        )}
        <Select name="agent" label="Agent" options={page.agentIds} value={filters.agent} />
        <Select name="verb" label="Verb" options={VERBS} value={filters.verb} />
        <Select name="mailbox" label="Mailbox" options={MAILBOX_STATES} value={filters.mailbox} />
        <Select name="status" label="Status" options={RESOLUTION_STATUSES} value={filters.status} />
        <label className="filter">
          <span className="filter-label">From (UTC)</span>
          <input
            type="datetime-local"
            name="from"
            defaultValue={inputValue(filters.from, "from")}
            data-testid="traffic-filter-from"
          />
        </label>
        <label className="filter">
          <span className="filter-label">To (UTC)</span>
          <input
            type="datetime-local"
            name="to"
            defaultValue={inputValue(filters.to, "to")}
            data-testid="traffic-filter-to"
          />
        </label>
        <button type="submit" className="btn" data-testid="traffic-filter-apply">
          Filter
        </button>
        <Link prefetch={false} href="/inbox/traffic">
          Clear
        </Link>
      </form>
      {page.agents.length > 0 && (
        <section className="traffic-agents" data-testid="traffic-agents">
          <h2>Agents on this page</h2>
          <ul>
            {page.agents.map((a) => (
              <li
                key={`${a.account}\u0000${a.agentId}`}
                data-testid="traffic-agent"
                data-agent={a.agentId}
                data-account={a.account}
              >
                <Link prefetch={false} href={agentHref(a.account, `agent:${a.agentId}`)}>
                  <code>{a.agentId}</code>
                </Link>
                {multiAccount && <span className="account"> · {a.account}</span>}
                {a.stopped ? (
                  <span className="when" data-testid="traffic-agent-state">
                    {" "}
                    — stopped by <code>{a.stopped.by}</code> since <LocalTime iso={a.stopped.at} />
                  </span>
                ) : (
                  <span className="when" data-testid="traffic-agent-state">
                    {" "}
                    — not stopped
                  </span>
                )}
                {a.canStop && <AgentStopControl account={a.account} agent={a.agentId} stopped={a.stopped !== null} />}
              </li>
            ))}
          </ul>
        </section>
      )}
      <TrafficTable rows={page.rows} multiAccount={multiAccount} stopped={stopped} />
      <nav className="pager" aria-label="Pages">
        {after && (
          <Link prefetch={false} href={withAfter(search, null)}>
            « Newest
          </Link>
        )}
        {page.next && (
          <Link prefetch={false} href={withAfter(search, page.next)}>
            Older »
          </Link>
        )}
      </nav>
      <LiveRefresh />
      <PeriodicRefresh everyMs={REFRESH_MS} />
    </main>
  );
}
