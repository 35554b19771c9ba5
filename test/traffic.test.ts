/**
 * What people see of agent↔agent traffic (§8.7.1 "Human visibility") on real PostgreSQL:
 * addressed messages stay out of the triage inbox (list, paging, facets), and the traffic view
 * (lib/inbox/traffic.ts) lists them for every seat of the account — viewers included, nobody else
 * — with both tracks (§14.2 mailbox; §7 status, resolution and response track), filters, keyset
 * pages, and the operator's stop state of each agent on the page. Rows are seeded directly (the
 * addressed submit is lib/messages', tested there).
 */
// covers: lib/inbox/traffic.ts, lib/inbox/traffic.sql.ts, lib/inbox/list.ts
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { itemForHuman } from "../lib/inbox/item";
import { listInbox } from "../lib/inbox/list";
import {
  addressedEntryFor,
  listTraffic,
  parseInstant,
  parseTrafficFilters,
  splitAddress,
  type TrafficRow,
} from "../lib/inbox/traffic";
import { submitMessage } from "../lib/messages/submit";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { addUser } from "../lib/principals/users";
import { mintId } from "@ma2h/protocol/ids";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const A = "coord/lead";
const B = "worker/b";
const C = "worker/c";
const fx = useHubFixture({ accounts: { acme: { agents: [A, B, C] }, other: { agents: [A] } }, server: "none" });
const acme = fx.account("acme");
const users: Record<string, string> = {};
const T0 = new Date("2026-12-05T10:00:00.000Z");
const at = (s: number) => new Date(T0.getTime() + s * 1000);

async function agentRow(slug: string, agentId: string): Promise<{ id: string; accountId: string }> {
  return db().agent.findFirstOrThrow({ where: { agentId, account: { slug } }, select: { id: true, accountId: true } });
}

interface Seed {
  slug?: string;
  from: string;
  to: string;
  type: "notify" | "ask" | "task";
  title: string;
  created: Date;
  status?: string;
  submitSession?: string;
  entry?: { state: string; deliveredAt?: Date; acknowledgedAt?: Date; prior?: string; endedAt?: Date };
  resolution?: { resolution: string; actor: string; resolvedAt: Date; deliveredToAgentAt?: Date; ackedAt?: Date };
}

/** One addressed message as the inter-agent submit writes it: the row, its `message` entry, a resolution. */
async function seed(s: Seed): Promise<string> {
  const slug = s.slug ?? "acme";
  const sender = await agentRow(slug, s.from);
  const target = splitAddress(s.to).agentId;
  const dest = await agentRow(slug, target as string);
  const id = mintId("message");
  const body = { ...envelope(s.type, s.from, { title: s.title }), to: s.to } as Record<string, unknown>;
  await db().message.create({
    data: {
      id,
      accountId: sender.accountId,
      agentRowId: sender.id,
      type: s.type,
      status: s.status ?? (s.type === "notify" ? (s.entry?.state ?? "queued") : "open"),
      ma2hVersion: "0.6",
      envelope: JSON.stringify(body),
      title: s.title,
      createdAt: s.created,
      statusChangedAt: s.created,
      toAddress: s.to,
      toAgentRowId: dest.id,
      submitSession: s.submitSession ?? null,
      destination: JSON.stringify({ reachable: true }),
    },
  });
  if (s.entry) {
    const toSession = splitAddress(s.to).session;
    await db().mailboxEntry.create({
      data: {
        id,
        accountId: sender.accountId,
        agentRowId: dest.id,
        kind: "message",
        toSession,
        fromActor: `agent:${s.from}${s.submitSession ? `#${s.submitSession}` : ""}`,
        ma2hVersion: "0.6",
        title: s.title,
        content: "{}",
        state: s.entry.state,
        dropAt: at(86_400),
        visibleAt: s.created,
        createdAt: s.created,
        deliveredAt: s.entry.deliveredAt ?? null,
        acknowledgedAt: s.entry.acknowledgedAt ?? null,
        prior: s.entry.prior ?? null,
        endedAt: s.entry.endedAt ?? null,
      },
    });
  }
  if (s.resolution) {
    await db().resolution.create({
      data: {
        id: mintId("resolution"),
        messageId: id,
        resolution: s.resolution.resolution,
        actor: s.resolution.actor,
        resolvedAt: s.resolution.resolvedAt,
        deliveredToAgentAt: s.resolution.deliveredToAgentAt ?? null,
        ackedAt: s.resolution.ackedAt ?? null,
        ackBy: s.resolution.ackedAt ? `agent:${s.from}` : null,
      },
    });
  }
  return id;
}

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

let human: string;
let answered: string;
let bounced: string;
let note: string;
let open: string;
let foreign: string;

beforeAll(async () => {
  for (const [handle, role] of [
    ["alice", "owner"],
    ["bob", "member"],
    ["vic", "viewer"],
  ] as const) {
    users[handle] = (await addUser(`${handle}@acme.test`, "acme", handle, role)).userId;
  }
  users.gina = (await addUser("gina@other.test", "other", "gina", "owner")).userId;

  // A human-inbox ask of the same agent, for contrast.
  const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${acme.keys[A]}` })));
  human = (await submitMessage(principal, envelope("ask", A, { title: "For people" }))).ack.id;

  // A asks B's session; B answered from its session; the answer reached A and A acked it.
  answered = await seed({
    from: A,
    to: `agent:${B}#sess_b1`,
    type: "ask",
    title: "Which region?",
    created: at(1),
    submitSession: "sess_a1",
    status: "answered",
    entry: { state: "acknowledged", deliveredAt: at(2), acknowledgedAt: at(3) },
    resolution: {
      resolution: "answered",
      actor: `agent:${B}#sess_b1`,
      resolvedAt: at(4),
      deliveredToAgentAt: at(5),
      ackedAt: at(6),
    },
  });
  // A asks B's session; the session died after the claim: bounced, auto-cancelled as undeliverable.
  bounced = await seed({
    from: A,
    to: `agent:${B}#sess_b2`,
    type: "ask",
    title: "Deploy now?",
    created: at(10),
    status: "cancelled",
    entry: { state: "bounced", deliveredAt: at(11), prior: "delivered", endedAt: at(12) },
    resolution: { resolution: "cancelled", actor: "system:undeliverable", resolvedAt: at(12) },
  });
  // C tells A (principal-addressed), still queued.
  note = await seed({
    from: C,
    to: `agent:${A}`,
    type: "notify",
    title: "Build green",
    created: at(20),
    entry: { state: "queued" },
  });
  // A gives C a task, delivered, open.
  open = await seed({
    from: A,
    to: `agent:${C}`,
    type: "task",
    title: "Rotate keys",
    created: at(30),
    entry: { state: "delivered", deliveredAt: at(31) },
  });
  foreign = await seed({
    slug: "other",
    from: A,
    to: `agent:${A}`,
    type: "notify",
    title: "Elsewhere",
    created: at(40),
    entry: { state: "queued" },
  });
});

describe("the triage inbox", () => {
  it("lists, pages and counts no addressed message (§8.7.1)", async () => {
    const page = await listInbox(users.alice as string, {});
    expect(ids(page.rows)).toEqual([human]);
    expect(page.total).toBe(1);
    expect(page.counts.verb).toEqual({ ask: 1 });
    expect(page.counts.status).toEqual({ open: 1 });
    expect(Object.keys(page.counts.agent)).toEqual([A]);
    for (const status of ["answered", "cancelled", "delivered", "queued"] as const) {
      const p = await listInbox(users.alice as string, { status: status as "answered" });
      expect(p.rows).toEqual([]);
    }
    expect((await listInbox(users.alice as string, { verb: "task" })).rows).toEqual([]);
  });

  it("still opens an addressed message on its item page for any seat, with its entry", async () => {
    for (const who of ["alice", "bob", "vic"]) {
      const item = await itemForHuman(users[who] as string, bounced);
      expect(item?.id).toBe(bounced);
      expect(item?.to).toBe(`agent:${B}#sess_b2`);
    }
    expect(await itemForHuman(users.gina as string, bounced)).toBeNull();
    const entry = await addressedEntryFor(answered);
    expect(entry?.from).toBe(`agent:${A}#sess_a1`);
    expect(entry?.track).toMatchObject({ state: "acknowledged", toSession: "sess_b1" });
    expect(await addressedEntryFor(human)).toBeNull();
    expect((await itemForHuman(users.alice as string, human))?.to).toBeNull();
  });

  it("offers resolve controls on an addressed message only to people its allowed_resolvers lists (§9.1)", async () => {
    // No list: the addressee resolves it, not people (the same rule resolveMessage enforces).
    const task = await itemForHuman(users.alice as string, open);
    expect(task?.can).toMatchObject({ complete: false, dismiss: false });
    expect(task?.can.refusal).toMatch(/addressee/);
    const listed = await seed({
      from: A,
      to: `agent:${B}`,
      type: "ask",
      title: "Ask a person too",
      created: at(-5),
      entry: { state: "queued" },
    });
    const row = await db().message.findUniqueOrThrow({ where: { id: listed } });
    const body = JSON.parse(row.envelope);
    body.request.allowed_resolvers = ["human:alice", `agent:${B}`];
    await db().message.update({ where: { id: listed }, data: { envelope: JSON.stringify(body) } });
    try {
      expect((await itemForHuman(users.alice as string, listed))?.can).toMatchObject({ refusal: null, answer: true });
      expect((await itemForHuman(users.bob as string, listed))?.can.refusal).toMatch(/allowed_resolvers/);
    } finally {
      await db().mailboxEntry.delete({ where: { id: listed } });
      await db().message.delete({ where: { id: listed } });
    }
  });
});

describe("listTraffic", () => {
  const byId = (rows: TrafficRow[], id: string) => rows.find((r) => r.id === id) as TrafficRow;

  it("lists the account's addressed messages newest first for every seat, viewers included", async () => {
    for (const who of ["alice", "bob", "vic"]) {
      const page = await listTraffic(users[who] as string, {});
      expect(ids(page.rows)).toEqual([open, note, bounced, answered]);
      expect(page.next).toBeNull();
    }
    expect(ids((await listTraffic(users.gina as string, {})).rows)).toEqual([foreign]);
    // Another account's slug is no way in.
    expect((await listTraffic(users.vic as string, { account: "other" })).rows).toEqual([]);
  });

  it("carries both tracks: the mailbox entry and the resolution with its response track", async () => {
    const { rows } = await listTraffic(users.vic as string, {});
    expect(byId(rows, answered)).toMatchObject({
      type: "ask",
      title: "Which region?",
      account: "acme",
      from: { agentId: A, address: `agent:${A}#sess_a1`, session: "sess_a1" },
      to: { agentId: B, address: `agent:${B}#sess_b1`, session: "sess_b1" },
      mailbox: { state: "acknowledged", deliveredAt: at(2).toISOString(), acknowledgedAt: at(3).toISOString() },
      resolution: {
        status: "answered",
        actor: `agent:${B}#sess_b1`,
        response: "acknowledged",
        deliveredAt: at(5).toISOString(),
        acknowledgedAt: at(6).toISOString(),
      },
    });
    expect(byId(rows, bounced)).toMatchObject({
      mailbox: { state: "bounced", prior: "delivered", deliveredAt: at(11).toISOString() },
      resolution: { status: "cancelled", actor: "system:undeliverable", response: "not-delivered" },
    });
    expect(byId(rows, note)).toMatchObject({
      type: "notify",
      from: { address: `agent:${C}`, session: null },
      to: { agentId: A, session: null },
      mailbox: { state: "queued", deliveredAt: null },
      resolution: null,
    });
    expect(byId(rows, open).resolution).toMatchObject({ status: "open", actor: null, response: null });
  });

  it("filters by agent (either side), verb, mailbox state, §7 status and time range", async () => {
    const alice = users.alice as string;
    const list = async (f: Record<string, string>) => ids((await listTraffic(alice, parseTrafficFilters(f))).rows);
    expect(await list({ agent: B })).toEqual([bounced, answered]);
    expect(await list({ agent: C })).toEqual([open, note]);
    expect(await list({ agent: A })).toEqual([open, note, bounced, answered]);
    expect(await list({ agent: "nobody" })).toEqual([]);
    expect(await list({ verb: "notify" })).toEqual([note]);
    expect(await list({ mailbox: "bounced" })).toEqual([bounced]);
    expect(await list({ mailbox: "queued" })).toEqual([note]);
    expect(await list({ status: "cancelled" })).toEqual([bounced]);
    expect(await list({ status: "open" })).toEqual([open]); // an addressed notify has no §7 status
    expect(await list({ from: at(10).toISOString(), to: at(20).toISOString() })).toEqual([bounced]);
    expect(await list({ from: "2026-12-05T10:00:15" })).toEqual([open, note]); // no zone: UTC
    expect(await list({ to: "2026-12-05" })).toEqual([open, note, bounced, answered]); // the whole day
    expect(await list({ to: "2026-12-04" })).toEqual([]);
    expect(await list({ agent: B, status: "answered", verb: "ask" })).toEqual([answered]);
  });

  it("pages by keyset, newest first, with ties on one instant broken by id", async () => {
    const tie = [
      await seed({
        from: B,
        to: `agent:${C}`,
        type: "notify",
        title: "t1",
        created: at(50),
        entry: { state: "queued" },
      }),
      await seed({
        from: B,
        to: `agent:${C}`,
        type: "notify",
        title: "t2",
        created: at(50),
        entry: { state: "queued" },
      }),
    ].sort();
    const all: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const page = await listTraffic(users.alice as string, {}, { after, limit: 2 });
      all.push(...ids(page.rows));
      after = page.next;
      if (!after) break;
    }
    expect(all).toEqual([...tie, open, note, bounced, answered]);
    // An unreadable cursor is the first page.
    expect(ids((await listTraffic(users.alice as string, {}, { after: "garbage", limit: 2 })).rows)).toEqual(tie);
    await db().message.deleteMany({ where: { id: { in: tie } } });
  });

  it("names each agent on the page once with its stop record; only owners and admins get the control", async () => {
    const b = await agentRow("acme", B);
    await db().agentStop.create({
      data: { agentRowId: b.id, accountId: b.accountId, stoppedAt: at(60), stoppedBy: "human:alice" },
    });
    try {
      const owner = await listTraffic(users.alice as string, {});
      expect(owner.agents).toEqual([
        { account: "acme", agentId: A, stopped: null, canStop: true },
        { account: "acme", agentId: B, stopped: { by: "human:alice", at: at(60).toISOString() }, canStop: true },
        { account: "acme", agentId: C, stopped: null, canStop: true },
      ]);
      expect(owner.agentIds).toEqual([A, B, C]);
      for (const who of ["bob", "vic"]) {
        expect((await listTraffic(users[who] as string, {})).agents.every((a) => !a.canStop)).toBe(true);
      }
      // Only the page's agents: a filtered page names fewer.
      expect((await listTraffic(users.alice as string, { agent: C })).agents.map((a) => a.agentId)).toEqual([A, C]);
    } finally {
      await db().agentStop.delete({ where: { agentRowId: b.id } });
    }
  });
});

describe("parsing", () => {
  it("drops what it does not recognise", () => {
    expect(
      parseTrafficFilters({
        verb: "shout",
        mailbox: "lost",
        status: "maybe",
        from: "yesterday",
        to: "2026-13-45",
        x: "y",
      }),
    ).toEqual({});
    expect(parseTrafficFilters({ verb: "ask", mailbox: "bounced", status: "cancelled", agent: " b " })).toEqual({
      verb: "ask",
      mailbox: "bounced",
      status: "cancelled",
      agent: "b",
    });
  });

  it("reads bounds as UTC unless zoned; a bare upper date includes its day", () => {
    expect(parseInstant("2026-12-05", "from")?.toISOString()).toBe("2026-12-05T00:00:00.000Z");
    expect(parseInstant("2026-12-05", "to")?.toISOString()).toBe("2026-12-06T00:00:00.000Z");
    expect(parseInstant("2026-12-05T10:30", "from")?.toISOString()).toBe("2026-12-05T10:30:00.000Z");
    expect(parseInstant("2026-12-05T10:30:00+02:00", "to")?.toISOString()).toBe("2026-12-05T08:30:00.000Z");
    expect(parseInstant("5 Dec", "from")).toBeNull();
  });

  it("splits addresses", () => {
    expect(splitAddress("agent:a/b#sess_1")).toEqual({ agentId: "a/b", session: "sess_1" });
    expect(splitAddress("agent:a")).toEqual({ agentId: "a", session: null });
    expect(splitAddress("human:x")).toEqual({ agentId: null, session: null });
  });
});
