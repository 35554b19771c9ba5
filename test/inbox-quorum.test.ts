/**
 * Quorum approvals in the inbox (docs/policies.md "Quorum"), on real PostgreSQL with the `/v1` API
 * served in-process: the list's approval lines read for a whole page in a fixed number of queries
 * (the same state `readApprovals` gives one message), the item view's approvals and the person's
 * answer "1 of 2 — your approval is recorded", a withdrawal seen on the next read, the sponsor's
 * item offering no answer with the reason, and every vote event in the audit export.
 */
// covers: lib/approvals/state.ts, lib/approvals/eligibility.ts, lib/inbox/list.ts, lib/inbox/item.ts, lib/principals/sponsors.ts
import { beforeAll, describe, expect, it } from "vitest";
import { approvalRecordedText } from "../lib/approvals/pending";
import { readApprovals, readApprovalsOf } from "../lib/approvals/state";
import { approvalsLine } from "../lib/approvals/tally";
import { auditJsonLines, parseAuditFilters } from "../lib/audit/log";
import { db, type Tx } from "../lib/db";
import { answerAsHuman } from "../lib/inbox/answer";
import { itemForHuman } from "../lib/inbox/item";
import { listInbox } from "../lib/inbox/list";
import type { ApprovalsView } from "../lib/inbox/view";
import { withdrawVote } from "../lib/messages/approvals";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { changeSponsors } from "../lib/principals/sponsors";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const DEPLOY = "deploybot/prod";
const PLAIN = "lintbot";
const fx = useHubFixture({
  server: "in-process",
  accounts: {
    acme: {
      agents: [DEPLOY, PLAIN],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "alice", role: "member" },
        { handle: "bob", role: "member" },
        { handle: "carol", role: "member" },
        { handle: "sam", role: "member" },
      ],
    },
  },
});
const OWNER = { actor: "human:olga", role: "owner" } as const;

/** Two approvals of a deploy bot's confirm ask, never from its sponsor (sam, through group oncall). */
const POLICY = {
  version: 1,
  groups: { oncall: ["human:sam"] },
  rules: [
    {
      name: "prod-deploys",
      match: { agent: "deploybot/*", mode: "confirm" },
      assign: ["human:alice", "human:bob", "human:carol", "human:sam"],
      approvals: 2,
      exclude_sponsors: true,
    },
  ],
};

let accountId = "";
const users: Record<string, string> = {};

beforeAll(async () => {
  accountId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" }, select: { id: true } })).id;
  await applyPolicy(accountId, PolicyFileSchema.parse(POLICY), OWNER);
  const agent = await db().agent.findFirstOrThrow({ where: { accountId, agentId: DEPLOY }, select: { id: true } });
  // A group sponsor: its members are the agent's sponsors too (sponsorHandlesByAgent reads through it).
  await changeSponsors(accountId, agent.id, { set: ["group:oncall"] }, OWNER);
  for (const h of ["olga", "alice", "bob", "carol", "sam"])
    users[h] = (await db().user.findUniqueOrThrow({ where: { email: `${h}@acme.test` }, select: { id: true } })).id;
});

async function ask(agent: string): Promise<string> {
  const res = await fx
    .agent(agent, "acme")
    .post("/v1/messages", envelope("ask", agent, { request: { mode: "confirm" } }));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}
const answer = (who: string, id: string, value = "approve") =>
  answerAsHuman(users[who] as string, id, { kind: "answer", value });
const line = (view: ApprovalsView | null | undefined) =>
  view ? approvalsLine({ ...view, votes: view.votes.map((v) => ({ ...v, comment: null, at: new Date(v.at) })) }) : null;
const rowsOf = async (who: string) => (await listInbox(users[who] as string, {}, { limit: 200 })).rows;

/** A client that counts the model calls made through it (each one statement here: no nested writes). */
function counting(): { q: Tx; calls: () => number } {
  let n = 0;
  const client = db();
  const q = new Proxy(client, {
    get(target, prop) {
      const model: unknown = Reflect.get(target, prop);
      if (typeof prop !== "string" || prop.startsWith("$") || model === null || typeof model !== "object") return model;
      return new Proxy(model, {
        get(m, op) {
          const f: unknown = Reflect.get(m, op);
          if (typeof f !== "function") return f;
          return (...args: unknown[]) => {
            n += 1;
            return f.apply(m, args);
          };
        },
      });
    },
  });
  return { q: q as unknown as Tx, calls: () => n };
}

describe("the approval line in the inbox", () => {
  it("each listed quorum ask with votes carries its line, read for the page at once; others carry none", async () => {
    const voted = [await ask(DEPLOY), await ask(DEPLOY), await ask(DEPLOY)];
    const unvoted = await ask(DEPLOY);
    const plain = await ask(PLAIN);
    expect(await answer("alice", voted[0] as string)).toEqual({
      ok: true,
      status: "open",
      approvals: { have: 1, need: 2 },
    });
    await answer("bob", voted[1] as string, "deny");
    await answer("carol", voted[1] as string);
    await answer("carol", voted[2] as string);

    const rows = await rowsOf("bob");
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(line(byId.get(voted[0] as string)?.approvals)).toBe("1 of 2 approvals — alice: approve");
    expect(line(byId.get(voted[1] as string)?.approvals)).toBe("1 of 2 approvals — bob: deny; carol: approve");
    expect(byId.get(unvoted)?.approvals).toBeNull();
    expect(byId.get(plain)?.approvals).toBeNull();
    expect(byId.get(voted[0] as string)?.status).toBe("open");
    // The list's line is the state readApprovals gives that one message.
    for (const id of voted) {
      const one = await readApprovals(id);
      expect(byId.get(id)?.approvals).toEqual({
        need: one?.need,
        have: one?.have,
        votes: one?.votes.map((v) => ({ handle: v.handle, value: v.value, at: v.at.toISOString(), counts: v.counts })),
      });
    }

    // However many rows: the same statements (the votes, the voters' seats, the sponsors).
    const rowsFor = async (ids: string[]) =>
      db().message.findMany({
        where: { id: { in: ids } },
        select: { id: true, accountId: true, agentRowId: true, routing: true },
      });
    const one = counting();
    expect((await readApprovalsOf(await rowsFor([voted[0] as string]), one.q)).size).toBe(1);
    const many = counting();
    const all = await readApprovalsOf(await rowsFor([...voted, unvoted, plain]), many.q);
    expect([...all.keys()].sort()).toEqual([...voted, unvoted].sort());
    expect(all.get(unvoted)).toEqual({ need: 2, have: {}, votes: [] });
    expect(one.calls()).toBe(3);
    expect(many.calls()).toBe(3);
    // A page with no quorum ask reads nothing more.
    const none = counting();
    expect((await readApprovalsOf(await rowsFor([plain]), none.q)).size).toBe(0);
    expect(none.calls()).toBe(0);
  });

  it("the item: the line and the recorded answer; a withdrawal and a change show on the next read", async () => {
    const id = await ask(DEPLOY);
    const first = await answer("alice", id);
    expect(first).toEqual({ ok: true, status: "open", approvals: { have: 1, need: 2 } });
    if (!first.ok || !first.approvals) throw new Error("not recorded");
    expect(approvalRecordedText(first.approvals)).toBe("1 of 2 — your approval is recorded");
    const item = await itemForHuman(users.bob as string, id);
    expect(item?.status).toBe("open");
    expect(item?.resolution).toBeNull();
    expect(line(item?.approvals)).toBe("1 of 2 approvals — alice: approve");
    expect(item?.can).toMatchObject({ refusal: null, answer: true });

    expect(await withdrawVote(users.alice as string, id)).toEqual({
      id,
      status: "open",
      approvals: { have: 0, need: 2 },
    });
    expect(line((await itemForHuman(users.bob as string, id))?.approvals)).toBe("0 of 2 approvals");
    expect((await rowsOf("bob")).find((r) => r.id === id)?.approvals).toBeNull();

    // Answering again records anew; answering another value changes it.
    await answer("alice", id);
    expect(await answer("alice", id, "deny")).toMatchObject({ ok: true, approvals: { have: 1, need: 2 } });
    expect(line((await itemForHuman(users.alice as string, id))?.approvals)).toBe("1 of 2 approvals — alice: deny");
    expect(await answer("bob", id, "deny")).toEqual({ ok: true, status: "answered" });
    const done = await itemForHuman(users.bob as string, id);
    expect(done?.resolution).toMatchObject({ actor: "human:bob", value: "deny" });
    // The votes stay on the settled item's page.
    expect(line(done?.approvals)).toBe("2 of 2 approvals — alice: deny; bob: deny");
    await expect(withdrawVote(users.alice as string, id)).rejects.toMatchObject({ code: "already_terminal" });
  });

  it("the sponsor (through a group) is offered no answer, with the reason; a member of the list, no row action", async () => {
    const id = await ask(DEPLOY);
    const item = await itemForHuman(users.sam as string, id);
    expect(item?.can).toMatchObject({ answer: false, decline: false });
    expect(item?.can.refusal).toBe(
      "the account's approval policy (rule prod-deploys) does not ask you: sponsor of this agent",
    );
    const row = (await rowsOf("sam")).find((r) => r.id === id);
    expect(row).toMatchObject({ canAnswer: false, canDecline: false });
    expect(row?.refusal).toMatch(/sponsor of this agent$/);
    expect(await answer("sam", id)).toMatchObject({ ok: false, code: "not_authorized" });
  });

  it("the audit export has every vote event: recorded, replaced, withdrawn, and the completing answer", async () => {
    const id = await ask(DEPLOY);
    await answer("alice", id);
    await answer("alice", id, "deny");
    await withdrawVote(users.alice as string, id);
    await answer("carol", id);
    await answer("bob", id);
    const lines: Array<{ event: string; actor: string; message_id: string; detail: unknown }> = [];
    for await (const l of auditJsonLines(accountId, parseAuditFilters({}))) {
      const entry = JSON.parse(l);
      if (entry.message_id === id) lines.push(entry);
    }
    expect(lines.filter((e) => !e.event.startsWith("response.") && e.event !== "message.submitted")).toEqual([
      expect.objectContaining({
        event: "approval.recorded",
        actor: "human:alice",
        detail: { answer: "approve", channel: "inbox" },
      }),
      expect.objectContaining({
        event: "approval.replaced",
        actor: "human:alice",
        detail: { answer: "deny", replaced: "approve", channel: "inbox" },
      }),
      expect.objectContaining({ event: "approval.withdrawn", actor: "human:alice", detail: { answer: "deny" } }),
      expect.objectContaining({
        event: "approval.recorded",
        actor: "human:carol",
        detail: { answer: "approve", channel: "inbox" },
      }),
      expect.objectContaining({
        event: "approval.recorded",
        actor: "human:bob",
        detail: { answer: "approve", channel: "inbox" },
      }),
      expect.objectContaining({ event: "message.answered", actor: "human:bob" }),
    ]);
    // The export's kind filter finds the family.
    const family: string[] = [];
    for await (const l of auditJsonLines(accountId, parseAuditFilters({ kind: "approval.*" }))) {
      const entry = JSON.parse(l);
      if (entry.message_id === id) family.push(entry.event);
    }
    expect(family).toEqual([
      "approval.recorded",
      "approval.replaced",
      "approval.withdrawn",
      "approval.recorded",
      "approval.recorded",
    ]);
  });
});
