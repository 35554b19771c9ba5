/**
 * One LISTEN connection per process for every NOTIFY channel the Hub uses: `ma2h_message_terminal`
 * (§8.2 long-polls and §8.7 parked drains, lib/messages/waiters.ts), `ma2h_inbox` (the inbox's
 * live updates, lib/inbox/events.ts; payload format in inbox.ts), `ma2h_seats` and
 * `ma2h_credentials` (the credential cache, lib/principals/credential-cache.ts). Payloads reach subscribers on
 * commit, from any process. If the connection drops, every subscriber is told (`lost`), because a NOTIFY sent meanwhile is gone for
 * good and nobody may wait on it; the connection comes back by itself while anyone is subscribed.
 */
import { forgetProcessWide, processWide } from "../process-wide";
import pg from "pg";
import { env } from "../env";
import { log } from "../log";
import { CHANNELS, type Channel } from "./channels";
import { listenOn } from "./listener.sql";

export interface Subscription {
  payload(payload: string): void;
  /** The connection dropped: notifications may have been missed; re-read whatever you wait on. */
  lost(): void;
}

const RECONNECT_MS = 500;

class NotificationListener {
  private readonly subscribers = new Map<Channel, Set<Subscription>>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;

  /** Adds a subscriber (it hears nothing until `ready()` has resolved once); returns its removal. */
  subscribe(channel: Channel, sub: Subscription): () => void {
    let set = this.subscribers.get(channel);
    if (!set) {
      set = new Set();
      this.subscribers.set(channel, set);
    }
    set.add(sub);
    return () => {
      set.delete(sub);
    };
  }

  /**
   * Whether the connection is up and LISTENing on every channel now. A subscriber that keeps state
   * only a NOTIFY can invalidate (the credential cache) trusts that state only while this holds.
   */
  isListening(): boolean {
    return this.client !== null;
  }

  /** Resolves once this process is listening on every channel; rejects if the database is down. */
  ready(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: env().DATABASE_URL });
    client.on("notification", (n) => {
      if (!n.payload) return;
      for (const sub of [...(this.subscribers.get(n.channel as Channel) ?? [])]) sub.payload(n.payload);
    });
    client.on("error", (err) => {
      log.warn("listen connection lost", { error_name: err.name });
      this.drop(client);
    });
    client.on("end", () => this.drop(client));
    await client.connect();
    for (const channel of CHANNELS) await listenOn(client, channel);
    this.client = client;
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    for (const set of this.subscribers.values()) for (const sub of [...set]) sub.lost();
    this.retryLater();
  }

  private retryLater(): void {
    if (this.closed || ![...this.subscribers.values()].some((s) => s.size > 0)) return;
    setTimeout(() => void this.ready().catch(() => this.retryLater()), RECONNECT_MS).unref();
  }

  /** Ends the connection for good (process shutdown); a later `notificationListener()` starts anew. */
  async close(): Promise<void> {
    this.closed = true;
    forgetProcessWide(SLOT, this);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}

const SLOT = "ma2h.notification-listener";

/** The process-wide listener (lib/process-wide.ts). */
export function notificationListener(): NotificationListener {
  return processWide(SLOT, () => new NotificationListener());
}
