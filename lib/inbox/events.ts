/**
 * Live inbox updates. Every submit and every terminal transition NOTIFYs `ma2h_inbox` with
 * `<account id>:<message id>` on commit, from any process (lib/messages/channel.ts). One LISTEN
 * connection per process receives them and fans each out to the subscribers seated in that account
 * (the SSE streams of app/inbox/events). Only ids travel; a browser re-reads through its session.
 * If the connection drops every subscriber is told to resync (a missed NOTIFY must not leave a list
 * stale), and it reconnects while anyone is subscribed.
 */
import pg from "pg";
import { env } from "../env";
import { log } from "../log";
import { INBOX_CHANNEL } from "../messages/channel";

export type InboxEvent = { kind: "change"; accountId: string; messageId: string } | { kind: "resync" };
type Subscriber = { accounts: ReadonlySet<string>; send: (e: InboxEvent) => void };

const RECONNECT_MS = 1000;
const KEY = Symbol.for("ma2h.inbox-events");
type Holder = { [KEY]?: InboxEvents };

class InboxEvents {
  private readonly subscribers = new Set<Subscriber>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;

  /** Listens (if not yet) and registers; returns the unsubscribe function. */
  async subscribe(accounts: Iterable<string>, send: (e: InboxEvent) => void): Promise<() => void> {
    const sub: Subscriber = { accounts: new Set(accounts), send };
    this.subscribers.add(sub);
    await this.ready().catch((err: Error) => {
      log.warn("inbox listen failed; retrying", { error_name: err.name });
      this.retryLater();
    });
    return () => {
      this.subscribers.delete(sub);
    };
  }

  private ready(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: env().DATABASE_URL });
    client.on("notification", (n) => {
      if (n.channel === INBOX_CHANNEL && n.payload) this.dispatch(n.payload);
    });
    client.on("error", (err) => {
      log.warn("inbox listen connection lost", { error_name: err.name });
      this.drop(client);
    });
    client.on("end", () => this.drop(client));
    await client.connect();
    await client.query(`LISTEN ${INBOX_CHANNEL}`);
    this.client = client;
  }

  private dispatch(payload: string): void {
    const at = payload.indexOf(":");
    if (at <= 0) return;
    const event: InboxEvent = { kind: "change", accountId: payload.slice(0, at), messageId: payload.slice(at + 1) };
    for (const sub of [...this.subscribers]) if (sub.accounts.has(event.accountId)) sub.send(event);
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    for (const sub of [...this.subscribers]) sub.send({ kind: "resync" });
    this.retryLater();
  }

  private retryLater(): void {
    if (this.closed || this.subscribers.size === 0) return;
    setTimeout(() => void this.ready().catch(() => this.retryLater()), RECONNECT_MS).unref();
  }

  get size(): number {
    return this.subscribers.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    const g = globalThis as Holder;
    if (g[KEY] === this) delete g[KEY];
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}

/** The process-wide listener (kept on globalThis: Next bundles and the server share one process). */
export function inboxEvents(): InboxEvents {
  const g = globalThis as Holder;
  return (g[KEY] ??= new InboxEvents());
}
