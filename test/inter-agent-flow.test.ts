/**
 * The inter-agent leg end to end on a running web + worker pair: an addressed ask from A's
 * session to B, B's session drains the signed `message` entry and resolves as `agent:B`, A's session
 * drains the `response` entry and acks it; the sender's `mailbox` track follows (queued → delivered
 * → acknowledged); a session that ends holding an un-acked entry bounces it (prior stamped once),
 * A gets one receipt and the ask auto-resolves `cancelled` by `system:undeliverable`; the account
 * opt-in and the sender allowlist refuse as the spec pins (§4, §8.0, §8.5).
 */
// covers: lib/messages/addressing.ts, lib/mailbox/drain.ts, lib/mailbox/ack.ts, lib/messages/mailbox-track.ts, lib/mailbox/undeliverable.ts, lib/mailbox/receipt.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { dropDueDirectives } from "../lib/mailbox/expiry";
import { envelope } from "./support/envelope";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { validateOfficial } from "./support/spec";
import { waitUntil } from "./support/wait";

const A = "coordinator/fleet";
const B = "worker/fleet";
const C = "blocked/fleet";
const OFF = "quiet/bot";
const CHATTY = "chatty/fleet";
const BUSY = "busy/fleet";
const SINK = "sink/fleet";
const ORPHAN = "orphan/fleet";
const LISTENER = "listener/fleet";
const INTER_AGENT_PER_MINUTE = 30;
const INBOX_DEPTH = 3;
const MAILBOX_DEPTH = 4;
const VISIBILITY_S = 2;

const hub = useHubFixture({
  server: "pair",
  accounts: {
    acme: { agents: [A, B, C, CHATTY, BUSY, SINK, ORPHAN, LISTENER], humans: [{ handle: "alice", role: "owner" }] },
    quiet: { agents: [OFF], humans: [{ handle: "quinn", role: "owner" }] },
  },
  env: {
    MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_S),
    MA2H_INTER_AGENT_RATE_LIMIT_PER_MINUTE: String(INTER_AGENT_PER_MINUTE),
    MA2H_INBOX_DEPTH: String(INBOX_DEPTH),
    MA2H_INBOUND_MAILBOX_DEPTH: String(MAILBOX_DEPTH),
  },
});
const acme = hub.account("acme");
const quiet = hub.account("quiet");
const agent = (id: string, account = acme) => client(hub.url, account.keys[id]);

async function optIn(slug: string, on = true): Promise<void> {
  await db().account.update({ where: { slug }, data: { interAgentEnabled: on } });
}

async function register(id: string): Promise<string> {
  const res = await agent(id).post("/v1/sessions", {});
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.session.id as string;
}

// Wire bodies, read loosely.
type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function drain(id: string, session: string): Promise<Item[]> {
  const res = await agent(id).get(`/v1/inbox?session=${session}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  for (const item of res.body.messages)
    expect(validateOfficial("inbound-message.schema.json", Object.values(item)[0])).toEqual([]);
  return res.body.messages as Item[];
}

/** Reads (or drains) until `ok` holds; a drain is a claim, so not more often than every 100 ms. */
const until = <T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> => waitUntil(read, ok, { every: 100 });

describe("an addressed ask between two sessions (§4, §6, §8.7.1, §14.2)", () => {
  it("message entry → resolve by the addressee → response entry; the mailbox track follows", async () => {
    await optIn("acme");
    const sa = await register(A);
    const sb = await register(B);
    const ask = envelope("ask", A, {
      to: `agent:${B}`,
      agent: { id: A, run_id: "r1", runtime: "cli", session: sa },
      state: { secret: 1 },
      client_ref: "mine",
    });
    const sent = await agent(A).post("/v1/messages", ask);
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    expect(sent.body.status).toBe("open");
    expect(sent.body.destination.state).toMatch(/^(online|offline|unknown)$/);
    expect(validateOfficial("submit-ack.schema.json", sent.body)).toEqual([]);
    const id = sent.body.id as string;

    // Traffic between agents never notifies people: no outbox row, no notification.
    expect(await db().notificationOutbox.count({ where: { messageId: id } })).toBe(0);
    expect(await db().notification.count({ where: { messageId: id } })).toBe(0);
    expect(await db().auditEvent.count({ where: { messageId: id, event: "message.submitted" } })).toBe(1);

    let read = await agent(A).get(`/v1/messages/${id}`);
    expect(read.body.mailbox).toEqual({ state: "queued" });
    expect(validateOfficial("get-message.schema.json", read.body)).toEqual([]);

    const [entry] = await drain(B, sb);
    expect(entry?.message).toMatchObject({ id, from: `agent:${A}#${sa}`, to: `agent:${B}`, type: "ask" });
    expect(entry?.message).not.toHaveProperty("state");
    expect(entry?.message).not.toHaveProperty("client_ref");
    expect(await drain(B, sb)).toEqual([]); // claimed for the window
    expect((await agent(B).get("/v1/inbox")).body.messages).toEqual([]); // session-less: never v0.5 kinds

    read = await agent(A).get(`/v1/messages/${id}`);
    expect(read.body.mailbox.state).toBe("delivered");
    expect(read.body.mailbox.delivered_at).toBeDefined();

    // The submitter may not answer its own addressed ask (§9.1); the addressee may.
    const own = await agent(A).post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "ship" });
    expect(own.status).toBe(403);
    const resolved = await agent(B).post(`/v1/messages/${id}/resolve?session=${sb}`, {
      resolution: "answered",
      value: "ship",
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);

    const acked = await agent(B).post(`/v1/inbox/ack?session=${sb}`, { ids: [id] });
    expect(acked.body).toEqual({ acked: 1 });

    const [response] = await drain(A, sa);
    expect(response?.response).toMatchObject({ in_reply_to: id, resolution: "answered", state: { secret: 1 } });
    expect(response?.response.response.actor).toBe(`agent:${B}#${sb}`);
    const ack = await agent(A).post(`/v1/inbox/ack?session=${sa}`, { ids: [response?.response.resolution_id] });
    expect(ack.body).toEqual({ acked: 1 });

    read = await agent(A).get(`/v1/messages/${id}`);
    expect(read.body.status).toBe("answered");
    expect(read.body.mailbox.state).toBe("acknowledged");
    expect(read.body.delivery.state).toBe("acknowledged");
    expect(validateOfficial("get-message.schema.json", read.body)).toEqual([]);
  });

  it("a session that ends holding an un-acked entry bounces it: one receipt, the ask cancelled as undeliverable", async () => {
    await optIn("acme");
    const sa = await register(A);
    const sb = await register(B);
    const over = { agent: { id: A, run_id: "r2", runtime: "cli", session: sa } };
    const seen = await agent(A).post("/v1/messages", envelope("ask", A, { ...over, to: `agent:${B}#${sb}` }));
    const unseen = await agent(A).post("/v1/messages", envelope("notify", A, { ...over, to: `agent:${B}#${sb}` }));
    expect(seen.status).toBe(202);
    expect(unseen.body.status).toBe("queued");
    const drained = await agent(B).get(`/v1/inbox?session=${sb}&max=1`);
    expect(drained.body.messages[0].message.id).toBe(seen.body.id);

    expect((await agent(B).delete(`/v1/sessions/${sb}`)).status).toBe(200);

    const settled = await until(
      () => agent(A).get(`/v1/messages/${seen.body.id}`),
      (r) => r.body.status === "cancelled",
    );
    expect(settled.body.mailbox).toMatchObject({ state: "bounced", prior: "delivered" });
    expect(settled.body.response.response.actor).toBe("system:undeliverable");
    const notify = await agent(A).get(`/v1/messages/${unseen.body.id}`);
    expect(notify.body).toMatchObject({ status: "bounced", mailbox: { state: "bounced", prior: "queued" } });

    // A drain claims what it returns (hidden for the visibility window), and the worker writes the two
    // receipts one at a time: collect across drains (each entry once, by its id) until both have come.
    const items: Item[] = [];
    const seenIds = new Set<string>();
    await until(
      async () => {
        for (const item of await drain(A, sa)) {
          const id = String(Object.values(item)[0].id);
          if (!seenIds.has(id)) items.push(item);
          seenIds.add(id);
        }
        return items;
      },
      (list) => list.filter((i) => i.receipt).length >= 2,
    );
    const receipts = items.filter((i) => i.receipt).map((i) => i.receipt);
    expect(receipts.map((r) => [r.in_reply_to, r.prior]).sort()).toEqual(
      [
        [seen.body.id, "delivered"],
        [unseen.body.id, "queued"],
      ].sort(),
    );
    expect(receipts.every((r) => r.session === sb && r.to === `agent:${A}#${sa}`)).toBe(true);
    expect(items.filter((i) => i.response).map((i) => i.response.resolution)).toEqual(["cancelled"]);
    // A sibling's ended session, to a sender without session visibility: collapsed to unknown (§4).
    const late = await agent(A).post("/v1/messages", envelope("notify", A, { ...over, to: `agent:${B}#${sb}` }));
    expect(late.status).toBe(422);
    expect(late.body.error.code).toBe("unknown_destination");
  });
});

describe("refusals (§4, §8.0, §8.5)", () => {
  it("not opted in → 422 invalid_field; unknown, cross-account and allowlist-blocked read alike", async () => {
    await optIn("quiet", false);
    const off = await agent(OFF, quiet).post("/v1/messages", envelope("notify", OFF, { to: `agent:${OFF}` }));
    expect(off.status).toBe(422);
    expect(off.body.error).toMatchObject({ code: "invalid_field" });
    expect(off.body.error.message).toContain("this account has not opted in to the inter-agent leg");

    await optIn("acme");
    const unknown = await agent(A).post("/v1/messages", envelope("notify", A, { to: "agent:nobody/here" }));
    const crossAccount = await agent(A).post("/v1/messages", envelope("notify", A, { to: `agent:${OFF}` }));
    await db().agent.updateMany({
      where: { agentId: B, account: { slug: "acme" } },
      data: { sendersRestricted: true, allowedSenders: [A] },
    });
    try {
      const blocked = await agent(C).post("/v1/messages", envelope("notify", C, { to: `agent:${B}` }));
      const allowed = await agent(A).post("/v1/messages", envelope("notify", A, { to: `agent:${B}` }));
      expect(allowed.status).toBe(202);
      for (const res of [unknown, crossAccount, blocked]) {
        expect(res.status).toBe(422);
        expect(res.body).toEqual(unknown.body);
      }
      expect(unknown.body.error.code).toBe("unknown_destination");
    } finally {
      await db().agent.updateMany({
        where: { agentId: B, account: { slug: "acme" } },
        data: { sendersRestricted: false, allowedSenders: [] },
      });
    }
  });
});

describe("the separate inter-agent budget (§8.6)", () => {
  it("addressed submits spend only rate_limit.inter_agent_requests_per_minute; human-inbox submits go on", async () => {
    await optIn("acme");
    const cap = (await client(hub.url).get("/.well-known/ma2h")).body;
    expect(cap.rate_limit.inter_agent_requests_per_minute).toBe(INTER_AGENT_PER_MINUTE);
    // One more than the budget in one window (a window can roll over mid-burst: then the burst is tried again).
    let statuses: number[] = [];
    for (let attempt = 0; attempt < 2 && statuses.at(-1) !== 429; attempt++) {
      statuses = [];
      for (let i = 0; i <= INTER_AGENT_PER_MINUTE; i++) {
        // To nobody: the budget is spent before the destination is checked (422 until it runs out).
        const res = await agent(CHATTY).post("/v1/messages", envelope("notify", CHATTY, { to: "agent:nobody/x" }));
        statuses.push(res.status);
      }
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    const human = await agent(CHATTY).post("/v1/messages", envelope("notify", CHATTY));
    expect(human.status).toBe(202); // the human leg's own budget is untouched
  });
});

describe("depth bounds (§8.6, choice A30)", () => {
  it("inbox_depth bounds the human inbox only; the destination's mailbox depth bounds addressed mail", async () => {
    await optIn("acme");
    for (let i = 0; i < INBOX_DEPTH; i++) {
      expect((await agent(BUSY).post("/v1/messages", envelope("ask", BUSY))).status).toBe(202);
    }
    const full = await agent(BUSY).post("/v1/messages", envelope("ask", BUSY));
    expect(full.status).toBe(429);
    // The human inbox is full, yet an addressed ask is the destination's mailbox's to bound.
    for (let i = 0; i < MAILBOX_DEPTH; i++) {
      const sent = await agent(BUSY).post("/v1/messages", envelope("ask", BUSY, { to: `agent:${SINK}` }));
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    }
    const over = await agent(BUSY).post("/v1/messages", envelope("ask", BUSY, { to: `agent:${SINK}` }));
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("rate_limited");
    expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await db().message.count({ where: { agent: { agentId: BUSY }, toAddress: { not: null } } })).toBe(
      MAILBOX_DEPTH,
    );
  });
});

describe("retention end of principal-addressed mail (§14.2, dp-022 (3))", () => {
  it("drained but never acked → bounced prior delivered naming the last claimant; never drained → expired, no receipt", async () => {
    await optIn("acme");
    const sa = await register(A);
    const so = await register(ORPHAN);
    const over = { agent: { id: A, run_id: "r9", runtime: "cli", session: sa }, to: `agent:${ORPHAN}` };
    const drained = (await agent(A).post("/v1/messages", envelope("ask", A, over))).body.id as string;
    const never = (await agent(A).post("/v1/messages", envelope("task", A, over))).body.id as string;
    const got = await agent(ORPHAN).get(`/v1/inbox?session=${so}&max=1`);
    expect(got.body.messages[0].message.id).toBe(drained);

    // The retention horizon, on this process's clock (the worker settles what the drop ends).
    await dropDueDirectives(new Date(Date.now() + 31 * 86_400_000));
    const ask = await until(
      () => agent(A).get(`/v1/messages/${drained}`),
      (r) => r.body.status !== "open",
    );
    expect(ask.body.status).toBe("cancelled");
    expect(ask.body.mailbox).toMatchObject({ state: "bounced", prior: "delivered" });
    expect(ask.body.mailbox.delivered_at).toBeDefined();
    const task = await agent(A).get(`/v1/messages/${never}`);
    expect(task.body.status).toBe("dismissed");
    expect(task.body.mailbox).toEqual({ state: "expired" });
    expect(task.body.response.response.actor).toBe("system:undeliverable");
    for (const body of [ask.body, task.body]) expect(validateOfficial("get-message.schema.json", body)).toEqual([]);

    const items = await until(
      () => drain(A, sa),
      (list) => list.some((i) => i.receipt),
    );
    const receipts = items.filter((i) => i.receipt).map((i) => i.receipt);
    expect(receipts).toHaveLength(1); // an expiry sends none (§14.2)
    expect(receipts[0]).toMatchObject({ in_reply_to: drained, prior: "delivered", session: so });
  });
});

describe("the stream carries the v0.5 kinds, provisionally (§8.7.2)", () => {
  it("a pushed message entry, id its ack key, leaves the sender's track queued until the ack", async () => {
    await optIn("acme");
    const sa = await register(A);
    const ss = await register(LISTENER);
    const abort = new AbortController();
    const res = await fetch(`${hub.url}/v1/inbox/stream?session=${ss}`, {
      headers: { authorization: `Bearer ${acme.keys[LISTENER]}`, accept: "text/event-stream" },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const sent = await agent(A).post(
      "/v1/messages",
      envelope("notify", A, {
        to: `agent:${LISTENER}#${ss}`,
        agent: { id: A, run_id: "r7", runtime: "cli", session: sa },
      }),
    );
    expect(sent.body.status).toBe("queued");
    // Read events until the entry for this message arrives.
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let event: { id?: string; data?: string } | null = null;
    const deadline = Date.now() + 5000;
    while (!event && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (const block of buffer.split("\n\n")) {
        const lines = Object.fromEntries(
          block
            .split("\n")
            .filter((l) => !l.startsWith(":") && l.includes(":"))
            .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]),
        );
        if (lines.event === "entry" && lines.id === sent.body.id) event = lines;
      }
    }
    abort.abort();
    expect(event?.id).toBe(sent.body.id);
    const item = JSON.parse(event?.data ?? "{}");
    expect(item.message).toMatchObject({ id: sent.body.id, from: `agent:${A}#${sa}`, to: `agent:${LISTENER}#${ss}` });
    expect(validateOfficial("inbound-message.schema.json", item.message)).toEqual([]);
    // A push is not a receipt: the sender still reads queued; the ack is.
    expect((await agent(A).get(`/v1/messages/${sent.body.id}`)).body.mailbox).toEqual({ state: "queued" });
    expect((await agent(LISTENER).post(`/v1/inbox/ack?session=${ss}`, { ids: [sent.body.id] })).body).toEqual({
      acked: 1,
    });
    const read = await agent(A).get(`/v1/messages/${sent.body.id}`);
    expect(read.body.status).toBe("acknowledged");
    expect(read.body.mailbox.state).toBe("acknowledged");
  });
});
