/**
 * §8.7.2 the mailbox stream on a running Hub (dp-021, R241–R249): the connect touchpoints; an entry
 * pushed as one signed event that an independent verifier accepts, its track still `queued` (a push
 * is provisional) until a drain after the window marks it delivered; the hold closed before the
 * lease with a nonzero margin, reconnecting as the renewal, staying connected renewing nothing, a
 * stream that is never reconnected letting its lease lapse; an operator's close ending a live stream
 * within a second; streams counting toward the parked-request cap; and the capability document.
 */
// covers: lib/mailbox/stream.ts, lib/http/routes/inbox.ts, lib/sessions/lease.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { DirectiveAgent } from "./support/directive-agent";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { validateOfficial } from "./support/spec";
import { staysFalse, waitFor, waitUntil } from "./support/wait";

const A = "stream/bot";
const B = "sibling/bot";
const C = "stopped/bot";
const D = "capped/bot";
const E = "poller/bot";
const MIN_TTL = 5;
const HOLD = 3;
// Long enough that the in-window checks below stay in the window on a loaded 2-core CI box.
const VISIBILITY_S = 5;
const PARKED = 2;

const hub = useHubFixture({
  accounts: { acme: { agents: [A, B, C, D, E], humans: [{ handle: "alice", role: "owner" }] } },
  env: {
    MA2H_SESSION_MIN_TTL_SECONDS: String(MIN_TTL),
    MA2H_STREAM_MAX_HOLD_SECONDS: String(HOLD),
    MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_S),
    MA2H_MAX_PARKED_PER_AGENT: String(PARKED),
  },
});
const acme = hub.account("acme");
const agent = (id: string) => client(hub.url, acme.keys[id]);
const alice = () => client(hub.url, acme.tokens.alice);

async function register(id: string, ttl = 30) {
  const res = await agent(id).post("/v1/sessions", { ttl_seconds: ttl });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.session as { id: string; expires_at: string; ttl_seconds: number };
}
const session = async (id: string, sessionId: string) =>
  (await agent(id).get(`/v1/sessions/${sessionId}`)).body.session;

interface SseEvent {
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
  retry?: string;
  at: number;
}

/** An SSE client over fetch: collects events as they arrive, and when the server closed. */
async function connect(id: string, query: string) {
  const abort = new AbortController();
  const res = await fetch(`${hub.url}/v1/inbox/stream${query}`, {
    headers: { authorization: `Bearer ${acme.keys[id]}`, accept: "text/event-stream" },
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  const connectedAt = Date.now();
  let closedAt: number | null = null;
  const done = (async () => {
    if (!res.ok || !res.body) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut = buffer.indexOf("\n\n");
        while (cut !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const e: SseEvent = { at: Date.now() };
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) e.comment = line.slice(1).trim();
            else {
              const at = line.indexOf(":");
              const field = line.slice(0, at);
              const v = line.slice(at + 1).replace(/^ /, "");
              if (field === "event" || field === "id" || field === "data" || field === "retry") e[field] = v;
            }
          }
          events.push(e);
          cut = buffer.indexOf("\n\n");
        }
      }
    } catch {
      /* aborted by the test */
    }
    closedAt = Date.now();
  })();
  return {
    status: res.status,
    headers: res.headers,
    body: res.ok ? null : await res.json(),
    events,
    connectedAt,
    closedAt: () => closedAt,
    done,
    entries: () => events.filter((e) => e.event === "entry"),
    close: () => abort.abort(),
  };
}

/** Until the stream's opening event (`retry:`): the hold is live, and what is authored from now on is pushed. */
const opened = (stream: { events: SseEvent[] }) =>
  waitFor(() => stream.events.length > 0, { every: 25, what: "the stream's opening event" });

describe("connecting (§8.7.2, §16.3)", () => {
  it("needs ?session=; foreign and unknown 404; own ended 410 gone; operator-closed 410 session_closed_by_operator", async () => {
    const missing = await connect(A, "");
    expect([missing.status, missing.body.error.code]).toEqual([400, "validation_error"]);
    const sibling = await register(B);
    for (const id of [sibling.id, "sess_unknown0000000000000000"]) {
      const s = await connect(A, `?session=${id}`);
      expect([s.status, s.body.error.code]).toEqual([404, "not_found"]);
    }
    const closed = await register(A);
    await agent(A).delete(`/v1/sessions/${closed.id}`);
    const gone = await connect(A, `?session=${closed.id}`);
    expect([gone.status, gone.body.error.code]).toEqual([410, "gone"]);
    const killed = await register(C);
    await alice().delete(`/v1/sessions/${killed.id}`);
    const stopped = await connect(C, `?session=${killed.id}`);
    expect([stopped.status, stopped.body.error.code]).toEqual([410, "session_closed_by_operator"]);
  });

  it("a live session gets text/event-stream, and the capability document advertises the stream", async () => {
    const s = await register(A);
    const stream = await connect(A, `?session=${s.id}`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    stream.close();
    const doc = (await client(hub.url).get("/.well-known/ma2h")).body;
    expect(validateOfficial("capability.schema.json", doc)).toEqual([]);
    expect(doc.inbound).toMatchObject({ stream_url: `${hub.url}/v1/inbox/stream`, stream_max_hold_seconds: HOLD });
    expect(doc.sessions.min_ttl_seconds).toBeGreaterThan(doc.inbound.stream_max_hold_seconds);
    expect(doc.inbound.stream_max_hold_seconds).toBeLessThanOrEqual(doc.presence.freshness_seconds);
  });
});

describe("entries (R242, R245)", () => {
  it("a directive authored while streaming arrives as one verified event; the push leaves it queued; a drain after the window delivers it", async () => {
    const s = await register(A);
    const other = await register(A);
    const stream = await connect(A, `?session=${s.id}`);
    expect(stream.status).toBe(200);
    await opened(stream);
    // Addressed to the other session: never on this stream.
    await alice().post("/v1/directives", { to: `agent:${A}#${other.id}`, title: "not yours" });
    const authored = await alice().post("/v1/directives", { to: `agent:${A}`, title: "pushed to you" });
    expect(authored.status).toBe(201);
    await waitFor(() => stream.entries().length >= 1, { timeout: 2000, every: 25, what: "the pushed entry" });
    // And nothing more arrives: not the other session's directive, not the same entry twice.
    await staysFalse(() => stream.entries().length > 1, 300, "a second entry on the stream", 25);
    stream.close();
    const entries = stream.entries();
    expect(entries).toHaveLength(1);
    expect(entries[0]!.id).toBe(authored.body.id);
    const item = JSON.parse(entries[0]!.data!) as { directive: Record<string, unknown>; signature: string };
    expect(item.directive.id).toBe(authored.body.id);
    expect(validateOfficial("inbound-message.schema.json", item.directive)).toEqual([]);
    const verifier = new DirectiveAgent(`agent:${A}`, `${hub.url}/.well-known/ma2h-keys`);
    expect(await verifier.receive(item)).toMatchObject({ ok: true });
    // Provisional: the track has not moved, and a drain inside the window does not see it.
    const track = async () => (await alice().get(`/v1/directives/${authored.body.id}`)).body.delivery;
    expect((await track()).state).toBe("queued");
    expect((await agent(A).get("/v1/inbox")).body.messages).toEqual([]);
    // Until the push's window has run out by the stamp the Hub judges it with (`visible_at`).
    await waitFor(
      async () =>
        ((await db().mailboxEntry.findUnique({ where: { id: authored.body.id } }))?.visibleAt.getTime() ?? Infinity) <
        Date.now(),
      { what: "the pushed entry's visibility window to run out" },
    );
    const drained = await agent(A).get("/v1/inbox");
    expect(drained.body.messages.map((m: { directive: { id: string } }) => m.directive.id)).toEqual([authored.body.id]);
    expect((await track()).state).toBe("delivered");
    await agent(A).post("/v1/inbox/ack", { ids: [authored.body.id] });
  });
});

describe("liveness (dp-021, R243, R244)", () => {
  it("the hold closes before the lease; staying connected renews nothing; reconnecting renews it", async () => {
    const s = await register(A, MIN_TTL);
    const first = await connect(A, `?session=${s.id}`);
    const atConnect = await session(A, s.id);
    // For 1.2 s of the hold, the open socket moves neither the lease nor last_seen.
    await staysFalse(
      async () => {
        const now = await session(A, s.id);
        return now.expires_at !== atConnect.expires_at || now.last_seen !== atConnect.last_seen;
      },
      1200,
      "the open stream renewing the lease or last_seen",
      200,
    );
    const midHold = await session(A, s.id);
    expect(midHold.expires_at).toBe(atConnect.expires_at); // an open socket is no evidence
    expect(midHold.last_seen).toBe(atConnect.last_seen);
    await first.done;
    const closedAt = first.closedAt()!;
    expect(closedAt).not.toBeNull();
    // Closed at the bound: no later than the hold, and with a nonzero margin before the lease.
    expect(closedAt - first.connectedAt).toBeLessThan(HOLD * 1000 + 1500);
    expect(closedAt).toBeLessThan(Date.parse(atConnect.expires_at) - 300);
    expect(first.events[0]?.retry).toBeDefined();
    // Reconnect at once, three holds in a row (longer than the TTL): still active, lease moving on.
    let previous = atConnect.expires_at as string;
    for (let i = 0; i < 3; i++) {
      const next = await connect(A, `?session=${s.id}`);
      expect(next.status).toBe(200);
      const now = await session(A, s.id);
      expect(now.state).toBe("active");
      expect(Date.parse(now.expires_at)).toBeGreaterThan(Date.parse(previous));
      previous = now.expires_at;
      await next.done;
    }
    expect((await session(A, s.id)).state).toBe("active");
  });

  it("a session drain's ?wait= answers before the lease, by the stream's margin; the next drain renews it", async () => {
    const s = await register(E, MIN_TTL); // margin: a fifth of 5 s
    const started = Date.now();
    const parked = await agent(E).get(`/v1/inbox?session=${s.id}&wait=${MIN_TTL}`);
    const answeredAt = Date.now();
    expect([parked.status, parked.body.messages]).toEqual([200, []]);
    const renewedTo = Date.parse((await session(E, s.id)).expires_at); // by this drain; a read renews nothing
    expect(answeredAt).toBeLessThan(renewedTo - 300);
    expect(answeredAt - started).toBeGreaterThan(2000); // it did hold
    const next = await agent(E).get(`/v1/inbox?session=${s.id}`);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(Date.parse((await session(E, s.id)).expires_at)).toBeGreaterThan(renewedTo);
  });

  it("a stream that is never reconnected lets its lease lapse", async () => {
    const s = await register(A, MIN_TTL);
    const once = await connect(A, `?session=${s.id}`);
    await once.done; // the server closed the hold; this zombie never comes back
    const lease = Date.parse((await session(A, s.id)).expires_at);
    // Lapsed by 500 ms past the lease's end, as before; read as soon as it has.
    const lapsed = await waitUntil(
      () => session(A, s.id),
      (now) => now.state === "expired",
      { timeout: Math.max(0, lease - Date.now()) + 500, what: "the lease to lapse" },
    );
    expect(lapsed.state).toBe("expired");
    const again = await connect(A, `?session=${s.id}`);
    expect([again.status, again.body.error.code]).toEqual([410, "gone"]);
  });

  it("an operator's close ends a live stream within a second", async () => {
    const s = await register(B);
    const stream = await connect(B, `?session=${s.id}`);
    expect(stream.status).toBe(200);
    await opened(stream);
    const closed = await alice().delete(`/v1/sessions/${s.id}`);
    const answeredAt = Date.now();
    expect(closed.body.session.closed_by_operator).toBe(true);
    await waitFor(() => stream.closedAt() !== null, { timeout: 5000, every: 25, what: "the stream to close" });
    expect(stream.closedAt()! - answeredAt).toBeLessThan(1000);
    await alice().post(`/v1/agents/${encodeURIComponent(B)}/resume`);
  });
});

describe("limits", () => {
  it("streams count toward the agent's parked-request cap", async () => {
    const sessions = await Promise.all([register(D), register(D), register(D)]);
    const open = [await connect(D, `?session=${sessions[0]!.id}`), await connect(D, `?session=${sessions[1]!.id}`)];
    expect(open.map((s) => s.status)).toEqual([200, 200]);
    const over = await connect(D, `?session=${sessions[2]!.id}`);
    expect([over.status, over.body.error.code]).toEqual([429, "rate_limited"]);
    expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
    for (const s of open) s.close();
    // The closed streams' slots are released as the Hub sees the hang-ups: then the third connects.
    const after = await waitFor(
      async () => {
        const c = await connect(D, `?session=${sessions[2]!.id}`);
        if (c.status === 200) return c;
        c.close();
        return false;
      },
      { every: 100, what: "a parked slot released by the closed streams" },
    );
    expect(after.status).toBe(200);
    after.close();
  });
});
