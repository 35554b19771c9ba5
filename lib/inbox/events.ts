/**
 * Live inbox updates. Every submit and every terminal transition NOTIFYs `ma2h_inbox` with
 * `<account id>:<message id>` on commit, from any process (lib/pubsub/inbox.ts). The process's
 * one LISTEN connection (lib/pubsub/listener.ts) hands them here, and each fans out to the
 * subscribers seated in that account (the SSE streams of app/inbox/events). Only ids travel; a
 * browser re-reads through its session.
 * If the connection drops every subscriber is told to resync (a missed NOTIFY must not leave a list
 * stale), and it reconnects while anyone is subscribed.
 * A subscriber that names its person also hears `seats` when that person's seats change
 * (`ma2h_seats`, lib/pubsub/seats.ts): the stream re-reads them, so a removed seat stops routing at
 * once.
 */
import { forgetProcessWide, processWide, processWideIfMade } from "../process-wide";
import { log } from "../log";
import { INBOX_CHANNEL, SEATS_CHANNEL } from "../pubsub/channels";
import { parseInboxPayload } from "../pubsub/inbox";
import { notificationListener } from "../pubsub/listener";

export type InboxEvent =
  | { kind: "change"; accountId: string; messageId: string }
  | { kind: "resync" }
  | { kind: "seats" };
type Subscriber = { accounts: ReadonlySet<string>; userId?: string; send: (e: InboxEvent) => void };

const RETRY_MS = 1000;
const SLOT = "ma2h.inbox-events";

class InboxEvents {
  private readonly subscribers = new Set<Subscriber>();
  private readonly listener = notificationListener();
  private readonly stopListening: () => void;
  private readonly stopSeats: () => void;

  constructor() {
    this.stopListening = this.listener.subscribe(INBOX_CHANNEL, {
      payload: (p) => this.dispatch(p),
      lost: () => {
        for (const sub of [...this.subscribers]) sub.send({ kind: "resync" });
      },
    });
    // A lost connection is reported once, above, as `resync`; the stream re-reads its seats on it.
    this.stopSeats = this.listener.subscribe(SEATS_CHANNEL, { payload: (p) => this.seatsChanged(p), lost: () => {} });
  }

  /**
   * Listens (if not yet) and registers; returns the unsubscribe function. With `userId`, the
   * subscriber also hears `seats` when that person's seats change.
   */
  async subscribe(accounts: Iterable<string>, send: (e: InboxEvent) => void, userId?: string): Promise<() => void> {
    const sub: Subscriber = { accounts: new Set(accounts), userId, send };
    this.subscribers.add(sub);
    await this.listen();
    return () => {
      this.subscribers.delete(sub);
    };
  }

  /** A database that is down now must not fail the page: keep trying while anyone is subscribed. */
  private async listen(): Promise<void> {
    try {
      await this.listener.ready();
    } catch (err) {
      log.warn("inbox listen failed; retrying", { error_name: (err as Error).name });
      const retry = () => {
        if (this.subscribers.size > 0) void this.listener.ready().catch(() => setTimeout(retry, RETRY_MS).unref());
      };
      setTimeout(retry, RETRY_MS).unref();
    }
  }

  private dispatch(payload: string): void {
    const parsed = parseInboxPayload(payload);
    if (!parsed) return;
    const event: InboxEvent = { kind: "change", accountId: parsed.accountId, messageId: parsed.id };
    for (const sub of [...this.subscribers]) if (sub.accounts.has(event.accountId)) sub.send(event);
  }

  private seatsChanged(userId: string): void {
    for (const sub of [...this.subscribers]) if (sub.userId === userId) sub.send({ kind: "seats" });
  }

  get size(): number {
    return this.subscribers.size;
  }

  async close(): Promise<void> {
    this.subscribers.clear();
    this.stopListening();
    this.stopSeats();
    forgetProcessWide(SLOT, this);
    await this.listener.close();
  }
}

/** Open inbox event streams in this process (its SSE subscribers); 0 before the first one. */
export function inboxStreamCount(): number {
  return processWideIfMade<InboxEvents>(SLOT)?.size ?? 0;
}

/** The process-wide fan-out (lib/process-wide.ts). */
export function inboxEvents(): InboxEvents {
  return processWide(SLOT, () => new InboxEvents());
}
