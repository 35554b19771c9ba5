/**
 * One peer cannot fill another agent's mailbox (§8.6, §8.7.1), on a real web + worker pair: an
 * agent holds at most MA2H_INBOUND_MAX_PER_SENDER un-acked addressed messages in one destination's
 * mailbox — the next is `429 rate_limited` with `Retry-After` and stores nothing, while other
 * senders still get through and an ack frees a place; the limit is advertised as
 * `rate_limit.max_pending_per_sender`. And the operator clears a flood at once with
 * `ma2h-hub agent mailbox purge` (a real CLI process): one sender's entries or all of them end as
 * the drop sweep ends them, audited as the CLI, and the purged asks auto-resolve `cancelled`.
 */
// covers: lib/messages/submit.ts, lib/mailbox/purge.ts
import { execFile } from "node:child_process";
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { envelope } from "./support/envelope";
import { client, repoRoot, TEST_AUTH_SECRET } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { validateOfficial } from "./support/spec";
import { waitUntil } from "./support/wait";

const A = "flood/acme";
const B = "target/acme";
const C = "peer/acme";
const PER_SENDER = 2;

const hub = useHubFixture({
  server: "pair",
  accounts: { acme: { agents: [A, B, C], humans: [{ handle: "alice", role: "owner" }] } },
  env: { MA2H_INBOUND_MAX_PER_SENDER: String(PER_SENDER), MA2H_INBOUND_MAILBOX_DEPTH: "10" },
  setup: async () => {
    await db().account.update({ where: { slug: "acme" }, data: { interAgentEnabled: true } });
  },
});
const acme = hub.account("acme");
const agent = (id: string) => client(hub.url, acme.keys[id]);

async function send(from: string, to: string) {
  return agent(from).post("/v1/messages", envelope("ask", from, { to: `agent:${to}` }));
}

async function liveFrom(sender: string): Promise<number> {
  const s = await db().agent.findFirstOrThrow({ where: { agentId: sender } });
  const b = await db().agent.findFirstOrThrow({ where: { agentId: B } });
  return db().mailboxEntry.count({
    where: { agentRowId: b.id, senderRowId: s.id, state: { in: ["queued", "delivered"] } },
  });
}

interface Run {
  code: number;
  json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bin/ma2h-hub.js", ...args, "--json"],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: hub.databaseUrl, AUTH_SECRET: TEST_AUTH_SECRET } },
      (err, stdout) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, json: JSON.parse(stdout) });
      },
    );
  });
}

const until = <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> =>
  waitUntil(read, ok, { timeout: ms, every: 100 });

describe("per-sender quota on addressed mail", () => {
  it("is advertised as rate_limit.max_pending_per_sender", async () => {
    const doc = (await client(hub.url).get("/.well-known/ma2h")).body;
    expect(doc.rate_limit.max_pending_per_sender).toBe(PER_SENDER);
    expect(validateOfficial("capability.schema.json", doc)).toEqual([]);
  });

  it("a sender over its share is 429 and stores nothing; another sender gets through; an ack frees a place", async () => {
    const first = [await send(A, B), await send(A, B)];
    for (const r of first) expect(r.status, JSON.stringify(r.body)).toBe(202);
    const messagesBefore = await db().message.count();

    const over = await send(A, B);
    expect(over.status).toBe(429);
    expect(Object.keys(over.body)).toEqual(["error"]);
    expect(over.body.error.code).toBe("rate_limited");
    expect(over.body.error.message).toMatch(/2 un-acked messages from this agent \(max_pending_per_sender\)/);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await db().message.count()).toBe(messagesBefore);
    expect(await liveFrom(A)).toBe(PER_SENDER);

    // The mailbox is not full: another peer still reaches it.
    expect((await send(C, B)).status).toBe(202);

    // B drains and acks one of A's: A has room for one more, and no more.
    const session = (await agent(B).post("/v1/sessions", {})).body.session.id as string;
    const drained = await agent(B).get(`/v1/inbox?session=${session}&max=10`);
    expect(drained.status).toBe(200);
    const fromA = first[0]?.body.id as string;
    expect(drained.body.messages.map((m: { message: { id: string } }) => m.message.id)).toContain(fromA);
    expect((await agent(B).post(`/v1/inbox/ack?session=${session}`, { ids: [fromA] })).body).toEqual({ acked: 1 });
    expect((await send(A, B)).status).toBe(202);
    expect((await send(A, B)).status).toBe(429);
  });

  it("ma2h-hub agent mailbox purge --from ends that sender's entries at once; its asks resolve cancelled", async () => {
    const a = await db().agent.findFirstOrThrow({ where: { agentId: A } });
    const b = await db().agent.findFirstOrThrow({ where: { agentId: B } });
    const live = await db().mailboxEntry.findMany({
      where: { agentRowId: b.id, senderRowId: a.id, state: { in: ["queued", "delivered"] } },
      select: { id: true, state: true },
    });
    expect(live).toHaveLength(PER_SENDER);

    const run = await cli("agent", "mailbox", "purge", B, "--account", "acme", "--from", A);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ mailbox: { agent: { id: B, account: "acme" }, from: A, ended: PER_SENDER } });

    for (const e of live) {
      const row = await db().mailboxEntry.findUniqueOrThrow({ where: { id: e.id } });
      // As the drop sweep ends them: never drained → expired; drained, never acked → bounced.
      expect(row.state).toBe(e.state === "queued" ? "expired" : "bounced");
      expect(await db().auditEvent.count({ where: { messageId: e.id, actor: "system:cli" } })).toBe(1);
      const read = await until(
        () => agent(A).get(`/v1/messages/${e.id}`),
        (r) => r.body.status === "cancelled",
      );
      expect(read.body.status).toBe("cancelled");
    }
    // The other sender's entry is untouched, and A may send again.
    expect(await liveFrom(C)).toBe(1);
    expect((await send(A, B)).status).toBe(202);
  }, 60_000);

  it("--all ends everything live; a bad command line or an unknown sender changes nothing", async () => {
    const before = await liveFrom(C);
    expect((await cli("agent", "mailbox", "purge", B, "--account", "acme")).json.error.code).toBe("validation_error");
    expect((await cli("agent", "mailbox", "purge", B, "--from", A, "--all")).json.error.code).toBe("validation_error");
    expect((await cli("agent", "mailbox", "empty", B, "--all")).json.error.code).toBe("validation_error");
    const unknown = await cli("agent", "mailbox", "purge", B, "--from", "nobody/acme");
    expect(unknown.code).not.toBe(0);
    expect(unknown.json.error.code).toBe("not_found");
    expect(await liveFrom(C)).toBe(before);

    const all = await cli("agent", "mailbox", "purge", B, "--all");
    expect(all.code).toBe(0);
    expect(all.json.mailbox).toMatchObject({ agent: { id: B }, from: null });
    expect(all.json.mailbox.ended).toBeGreaterThanOrEqual(2); // C's and A's latest, whatever else is live
    const b = await db().agent.findFirstOrThrow({ where: { agentId: B } });
    expect(await db().mailboxEntry.count({ where: { agentRowId: b.id, state: { in: ["queued", "delivered"] } } })).toBe(
      0,
    );
  });
});
