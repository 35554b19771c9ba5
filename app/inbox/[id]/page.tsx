import Link from "next/link";
import { notFound } from "next/navigation";
import { requireHuman } from "@/lib/next/current-human";
import { Countdown, LocalTime } from "@/components/Clock";
import { LiveRefresh } from "@/components/LiveRefresh";
import { MarkdownView } from "@/components/Markdown";
import { NotificationLog } from "@/components/NotificationLog";
import { submittingSession } from "@/lib/inbox/agent-sessions";
import { agentPageFor, presenceWording } from "@/lib/inbox/directives";
import { deliveriesForItem } from "@/lib/inbox/deliveries";
import { itemForHuman } from "@/lib/inbox/item";
import { tombstoneForHuman } from "@/lib/inbox/tombstone";
import { itemTrackFor } from "@/lib/inbox/response-track";
import { addressedEntryFor } from "@/lib/inbox/traffic";
import { itemNotificationLog } from "@/lib/notifications/item-log";
import { adminSeat } from "@/lib/principals/seats";
import type { ItemView } from "@/lib/inbox/view";
import { ContextParts } from "../_components/context-parts";
import { Deliveries } from "../_components/deliveries";
import { agentHref } from "../_components/directive-table";
import { DirectiveCompose } from "../_components/directive-compose";
import { ItemCrumbs } from "../_components/item-crumbs";
import { ResolvePanel } from "../_components/resolve-panel";
import { Handovers } from "../_components/handovers";
import { RememberForm } from "../_components/remember-form";
import { Tombstone } from "../_components/tombstone";
import { AgentWaiting, ResponseTrack } from "../_components/response-track";
import { MailboxTrack } from "../_components/traffic-table";

export const dynamic = "force-dynamic";
export const metadata = { title: "Item · MA2H Hub", referrer: "no-referrer" };

/** What happens at `expires_at` (§7): the default that will apply, or a bare expiry. */
function onExpiry(item: ItemView): string {
  if (item.type === "task") return "it expires with no default";
  if (item.ask?.defaultSummary) return `the default applies: ${item.ask.defaultSummary}`;
  return "it expires unanswered (no default)";
}

export default async function ItemPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const human = await requireHuman(`/inbox/${encodeURIComponent(id)}`);
  const item = await itemForHuman(human.userId, id, { shown: true });
  if (!item) {
    // Purged by retention (§8.2): a seat holder sees what the tombstone kept; anyone else 404.
    const tomb = await tombstoneForHuman(human.userId, id);
    if (!tomb) notFound();
    return <Tombstone tomb={tomb} />;
  }
  const a = item.agent;
  // Push deliveries for anyone who sees the item; the callback's path and redrive for the account's
  // owners and admins only (everyone else gets the origin, cut on the server).
  const seat = await adminSeat(human.userId, item.account);
  const deliveries = await deliveriesForItem(item.id, seat !== null);
  const track = await itemTrackFor(item.id); // §14.2 response track / §15.4 presence
  // "reminded"/"escalated" for anyone who sees the item; the notification rows for owners/admins.
  const notifications = await itemNotificationLog(item.id, seat !== null);
  // §4.1 / §16: the session that submitted it, with its state while the Hub keeps it.
  const session = a.session
    ? await submittingSession(human.userId, { account: item.account, agentId: a.id }, a.session)
    : null;
  // §8.7.1: an addressed message is readable by every seat; its `message` entry gives the
  // attested `from` the destination received and the §14.2 mailbox track.
  const entry = item.to ? await addressedEntryFor(item.id) : null;
  return (
    <main className="item">
      <ItemCrumbs account={item.account} addressed={item.to !== null} />
      <article>
        <header className="item-head">
          <div className="item-badges">
            <span className={`prio prio-${item.priority}`}>{item.priority}</span>
            <span className={`verb verb-${item.type}`}>{item.ask ? `ask · ${item.ask.mode}` : item.type}</span>
            <span className={`status status-${item.status}`}>{item.status}</span>
            {item.sensitive && <span className="sensitive">sensitive</span>}
          </div>
          <h1 data-testid="item-title">{item.title}</h1>
          {item.tags.length > 0 && (
            <p className="tags">
              {item.tags.map((t) => (
                <Link prefetch={false} key={t} className="tag" href={`/inbox?tag=${encodeURIComponent(t)}`}>
                  #{t}
                </Link>
              ))}
            </p>
          )}
        </header>

        <dl className="facts">
          <div>
            <dt>Agent</dt>
            <dd>
              <code>{a.id}</code>
              <AgentWaiting track={track} />
            </dd>
          </div>
          <div>
            <dt>Run</dt>
            <dd>
              <code>{a.runId}</code> · {a.runtime}
            </dd>
          </div>
          {item.to && (
            <>
              <div>
                <dt>From</dt>
                <dd data-testid="item-from">
                  <code>{entry?.from ?? `agent:${a.id}${a.session ? `#${a.session}` : ""}`}</code>
                </dd>
              </div>
              <div>
                <dt>To</dt>
                <dd data-testid="item-to">
                  <code>{item.to}</code>
                </dd>
              </div>
            </>
          )}
          {session && (
            <div>
              <dt>Session</dt>
              <dd data-testid="item-session">
                <Link
                  prefetch={false}
                  href={`${agentHref(item.account, `agent:${a.id}`)}#${encodeURIComponent(session.id)}`}
                  data-testid="item-session-link"
                >
                  <code>{session.id}</code>
                </Link>
                {session.label && <> · {session.label}</>}
                <span className="session-state" data-testid="item-session-state">
                  {" "}
                  —{" "}
                  {session.state === null
                    ? "no longer kept by the Hub"
                    : session.closedByOperator
                      ? "closed by an operator"
                      : session.state}
                </span>
              </dd>
            </div>
          )}
          {a.project && (
            <div>
              <dt>Project</dt>
              <dd>{a.project}</dd>
            </div>
          )}
          {a.labels.length > 0 && (
            <div>
              <dt>Labels</dt>
              <dd className="labels">
                {a.labels.map(([k, v]) => (
                  <span key={k} className="label">
                    {k}: {v}
                  </span>
                ))}
              </dd>
            </div>
          )}
          <div>
            <dt>Created</dt>
            <dd>
              <LocalTime iso={item.createdAt} />
            </dd>
          </div>
          {item.expiresAt && (
            <div>
              <dt>Expires</dt>
              <dd>
                <LocalTime iso={item.expiresAt} /> —{" "}
                {item.status === "open" ? (
                  <Countdown expiresAt={item.expiresAt} testId="item-countdown" />
                ) : (
                  <span data-testid="item-countdown">closed</span>
                )}
                <span className="on-expiry">; then {onExpiry(item)}</span>
              </dd>
            </div>
          )}
        </dl>

        {item.body && <MarkdownView testId="item-body">{item.body}</MarkdownView>}

        {item.task && (
          <section className="task-brief">
            <h2>Instructions</h2>
            <MarkdownView>{item.task.instructions}</MarkdownView>
            {item.task.verification && (
              <>
                <h2>Verification</h2>
                <p className="verification">{item.task.verification}</p>
              </>
            )}
          </section>
        )}

        {item.context.length > 0 && <ContextParts parts={item.context} />}

        {item.to && (
          <section className="panel mailbox-track" data-testid="item-mailbox-track">
            <h2>Mailbox</h2>
            <p>
              <MailboxTrack track={entry?.track ?? null} />
            </p>
          </section>
        )}

        <ResolvePanel item={item} />

        <RememberForm item={item} />

        <Handovers item={item} />

        <ResponseTrack track={track} />

        <Deliveries deliveries={deliveries} account={item.account} messageId={item.id} canRedrive={seat !== null} />

        <NotificationLog log={notifications} />
      </article>
      <AgentDirective userId={human.userId} account={item.account} agentId={a.id} />
      <LiveRefresh only={item.id} />
    </main>
  );
}

/** §13 from the item: instruct the agent that sent it, knowing whether it is listening (§15.4). */
async function AgentDirective({ userId, account, agentId }: { userId: string; account: string; agentId: string }) {
  const page = await agentPageFor(userId, account, agentId);
  if (!page) return null;
  return (
    <section className="item-directive">
      <p>
        <Link prefetch={false} href={agentHref(account, `agent:${agentId}`)} data-testid="item-agent-link">
          Agent page and directives sent to <code>{agentId}</code>
        </Link>
      </p>
      {page.canSend && (
        <DirectiveCompose
          account={account}
          agent={agentId}
          presenceState={page.presence.state}
          presenceText={presenceWording(page.presence)}
        />
      )}
    </section>
  );
}
