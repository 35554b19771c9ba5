import Link from "next/link";
import { notFound } from "next/navigation";
import { requireHuman } from "@/lib/next/current-human";
import { LocalTime } from "@/components/Clock";
import { LiveRefresh } from "@/components/LiveRefresh";
import { PeriodicRefresh } from "@/components/PeriodicRefresh";
import { agentSendersView } from "@/lib/inbox/agent-senders";
import { agentSessionsView } from "@/lib/inbox/agent-sessions";
import { agentPageFor, presenceWording } from "@/lib/inbox/directives";
import { AgentStopControl } from "../../../_components/agent-stop";
import { DirectiveCompose } from "../../../_components/directive-compose";
import { DirectiveTable } from "../../../_components/directive-table";
import { SenderAllowlist } from "../../../_components/sender-allowlist";
import { SessionTable } from "../../../_components/session-table";

/** Sessions change without a NOTIFY the inbox hears (§16): their list is re-read this often. */
const SESSIONS_REFRESH_MS = 5000;

export const dynamic = "force-dynamic";
export const metadata = { title: "Agent · MA2H Hub", referrer: "no-referrer" };

/**
 * One agent: whether it is listening (§15), its sessions and whether an operator stopped it (§16,
 * §16.4.1; Stop and Resume for owners and admins), who may message it (§13.5; editable by owners and
 * admins), a directive composer (§13) and what was sent to it.
 */
export default async function AgentPage({ params }: { params: Promise<{ account: string; agent: string[] }> }) {
  const { account, agent } = await params;
  const slug = decodeURIComponent(account);
  const agentId = agent.map(decodeURIComponent).join("/");
  const human = await requireHuman(`/inbox/agents/${account}/${agent.join("/")}`);
  const page = await agentPageFor(human.userId, slug, agentId);
  if (!page) notFound();
  const p = page.presence;
  const [sessions, senders] = await Promise.all([
    agentSessionsView(page.seat, page.agentRowId),
    agentSendersView(page.seat, page.agentId),
  ]);
  return (
    <main className="agent-page">
      <nav className="crumbs">
        <Link prefetch={false} href="/inbox">
          ← Inbox
        </Link>
        <Link prefetch={false} href="/inbox/directives">
          Directives
        </Link>
        <span className="account">{page.seat.slug}</span>
      </nav>
      <h1>
        <code data-testid="agent-id">{page.agentId}</code>
      </h1>
      <p className={`presence presence-${p.state}`} data-testid="agent-presence">
        {p.state}
        {p.last_seen && (
          <>
            {" "}
            — last seen <LocalTime iso={p.last_seen} />
          </>
        )}
      </p>
      <section className="agent-sessions" data-testid="agent-sessions">
        <h2>Sessions</h2>
        {sessions.stop ? (
          <p className="notice notice-warn" data-testid="agent-stopped">
            Stopped by <code>{sessions.stop.by}</code> since <LocalTime iso={sessions.stop.at} /> — it cannot register a
            session until a person resumes it.
          </p>
        ) : (
          <p className="hint" data-testid="agent-not-stopped">
            Not stopped: it may register sessions.
          </p>
        )}
        {sessions.canStop && (
          <AgentStopControl account={page.seat.slug} agent={page.agentId} stopped={sessions.stop !== null} />
        )}
        <SessionTable sessions={sessions.sessions} />
      </section>
      <SenderAllowlist account={page.seat.slug} agent={page.agentId} view={senders} />
      {page.canSend ? (
        <DirectiveCompose
          account={page.seat.slug}
          agent={page.agentId}
          sessions={sessions.sessions
            .filter((s) => s.state === "active")
            .map((s) => ({ id: s.id, ...(s.label ? { label: s.label } : {}) }))}
          presenceState={p.state}
          presenceText={presenceWording(p)}
        />
      ) : (
        <p className="hint">Your role (viewer) reads directives but does not send them.</p>
      )}
      <h2>Sent to this agent</h2>
      <DirectiveTable rows={page.directives} showAgent={false} />
      <LiveRefresh />
      <PeriodicRefresh everyMs={SESSIONS_REFRESH_MS} />
    </main>
  );
}
