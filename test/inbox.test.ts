/**
 * The inbox's domain queries (lib/inbox) on real PostgreSQL: list order and keyset paging, every
 * filter and the faceted counts, cross-account isolation, the item view model (never `state` nor
 * `client_ref`), who may resolve, and resolving through the same verb as the API (edited, a lost
 * race, bulk skips with reasons).
 */
// covers: lib/inbox/list.ts, lib/inbox/list.sql.ts, lib/inbox/counts.ts, lib/inbox/item.ts, lib/inbox/answer.ts, lib/inbox/affordances.ts
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { answerAsHuman, bulkResolve } from "../lib/inbox/answer";
import { itemForHuman } from "../lib/inbox/item";
import { listInbox } from "../lib/inbox/list";
import { submitMessage } from "../lib/messages/submit";
import { resolveMessage } from "../lib/messages/resolve";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { addUser } from "../lib/principals/users";
import { useHubFixture } from "./support/hub-fixture";
import { envelope, type Provisioned } from "./support/provision";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const fx = useHubFixture({ accounts: { acme: { agents: [A, B] }, other: { agents: [A] } }, server: "none" });
const acme = fx.account("acme");
const other = fx.account("other");
const users: Record<string, string> = {};
const clock = fixedClock(new Date("2026-12-02T10:00:00.000Z"));

async function submit(agentId: string, body: Record<string, unknown>, p: Provisioned = acme): Promise<string> {
  const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${p.keys[agentId]}` })));
  clock.advance(1000); // distinct, increasing created_at
  return (await submitMessage(principal, body)).ack.id;
}

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

beforeAll(async () => {
  setClock(clock);
  for (const [handle, role] of [
    ["alice", "owner"],
    ["bob", "member"],
    ["vic", "viewer"],
    ["lara", "member"],
  ] as const) {
    users[handle] = (await addUser(`${handle}@acme.test`, "acme", handle, role)).userId;
  }
  users.gina = (await addUser("gina@other.test", "other", "gina", "member")).userId;
  // alice also holds a seat in `other`, under another handle.
  await addUser("alice@acme.test", "other", "alice-o", "member");
});

afterAll(async () => {
  setClock(null);
});

describe("listInbox", () => {
  let low: string,
    urgent: string,
    normalOld: string,
    normalNew: string,
    high: string,
    done: string,
    note: string,
    foreign: string;

  beforeAll(async () => {
    low = await submit(A, envelope("ask", A, { title: "Low thing", priority: "low", tags: ["ops"] }));
    normalOld = await submit(
      A,
      envelope("ask", A, { title: "Normal older", agent: { id: A, run_id: "r", runtime: "cli", project: "web-app" } }),
    );
    urgent = await submit(
      B,
      envelope("task", B, { title: "Urgent rotate 100%_key", priority: "urgent", tags: ["ops", "secrets"] }),
    );
    normalNew = await submit(A, envelope("ask", A, { title: "Normal newer", priority: "normal" }));
    high = await submit(A, envelope("ask", A, { title: "High ship", priority: "high", tags: ["release"] }));
    done = await submit(A, envelope("ask", A, { title: "Already answered", priority: "urgent" }));
    await resolveMessage({ kind: "human", userId: users.alice as string }, done, {
      resolution: "answered",
      value: "ship",
    });
    note = await submit(A, envelope("notify", A, { title: "Daily digest", tags: ["digest"] }));
    foreign = await submit(A, envelope("ask", A, { title: "Other account secret", priority: "urgent" }), other);
  });

  it("puts open items first by priority then oldest, then the rest newest first", async () => {
    const page = await listInbox(users.bob as string, {});
    expect(ids(page.rows)).toEqual([urgent, high, normalOld, normalNew, low, note, done]);
    expect(page.total).toBe(7);
    expect(page.next).toBeNull();
  });

  it("pages by keyset across the open/rest boundary without gaps or repeats", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const page = await listInbox(users.bob as string, {}, { after, limit: 2 });
      seen.push(...ids(page.rows));
      after = page.next;
      if (!after) break;
    }
    expect(seen).toEqual([urgent, high, normalOld, normalNew, low, note, done]);
  });

  it("never shows another account's items; a person with two seats sees both, or one selected", async () => {
    expect(ids((await listInbox(users.bob as string, {})).rows)).not.toContain(foreign);
    expect(ids((await listInbox(users.gina as string, {})).rows)).toEqual([foreign]);
    const both = await listInbox(users.alice as string, {});
    expect(ids(both.rows).slice(0, 2)).toEqual([urgent, foreign]); // both urgent: the older first
    expect(both.rows.find((r) => r.id === foreign)?.account).toBe("other");
    expect(both.counts.account).toEqual({ acme: 7, other: 1 });
    expect(ids((await listInbox(users.alice as string, { account: "acme" })).rows)).not.toContain(foreign);
    // An account they hold no seat in shows nothing, not an error.
    expect((await listInbox(users.gina as string, { account: "acme" })).rows).toEqual([]);
  });

  it("filters by verb, status, priority, agent, project, tag and title search", async () => {
    const bob = users.bob as string;
    expect(ids((await listInbox(bob, { verb: "task" })).rows)).toEqual([urgent]);
    expect(ids((await listInbox(bob, { status: "answered" })).rows)).toEqual([done]);
    expect(ids((await listInbox(bob, { status: "open" })).rows)).toEqual([urgent, high, normalOld, normalNew, low]);
    expect(ids((await listInbox(bob, { priority: "high" })).rows)).toEqual([high]);
    expect(ids((await listInbox(bob, { agent: B })).rows)).toEqual([urgent]);
    expect(ids((await listInbox(bob, { project: "web-app" })).rows)).toEqual([normalOld]);
    expect(ids((await listInbox(bob, { tag: "ops" })).rows)).toEqual([urgent, low]);
    expect(ids((await listInbox(bob, { q: "NORMAL" })).rows)).toEqual([normalOld, normalNew]);
    // % and _ match literally.
    expect(ids((await listInbox(bob, { q: "100%_" })).rows)).toEqual([urgent]);
    expect((await listInbox(bob, { q: "1_0" })).rows).toEqual([]); // "_" is not a wildcard
    expect(ids((await listInbox(bob, { verb: "ask", priority: "urgent" })).rows)).toEqual([done]);
  });

  it("counts each facet under the other filters", async () => {
    const all = await listInbox(users.bob as string, {});
    expect(all.counts.verb).toEqual({ ask: 5, task: 1, notify: 1 });
    expect(all.counts.status).toEqual({ open: 5, answered: 1, delivered: 1 });
    expect(all.counts.priority).toEqual({ urgent: 2, high: 1, normal: 3, low: 1 });
    expect(all.counts.agent).toEqual({ [A]: 6, [B]: 1 });
    expect(all.counts.project).toEqual({ "web-app": 1 });
    expect(all.counts.tag[0]).toEqual(["ops", 2]);
    const asks = await listInbox(users.bob as string, { verb: "ask" });
    expect(asks.total).toBe(5);
    expect(asks.counts.verb).toEqual({ ask: 5, task: 1, notify: 1 }); // its own facet ignores it
    expect(asks.counts.status).toEqual({ open: 4, answered: 1 });
  });

  it("rows carry what the keyboard acts on, per the person's rights", async () => {
    const bobRow = (await listInbox(users.bob as string, {})).rows.find((r) => r.id === high);
    expect(bobRow).toMatchObject({
      mode: "select",
      quickValue: "ship",
      canAnswer: true,
      canDecline: true,
      refusal: null,
    });
    const vicRow = (await listInbox(users.vic as string, {})).rows.find((r) => r.id === high);
    expect(vicRow).toMatchObject({
      canAnswer: false,
      canDecline: false,
      refusal: "role viewer may read but not resolve",
    });
    const task = (await listInbox(users.bob as string, {})).rows.find((r) => r.id === urgent);
    expect(task).toMatchObject({ type: "task", canComplete: true, canDecline: true });
  });
});

describe("listing columns", () => {
  it("accept an agent's over-long project and tags (kept in the envelope, just not filterable)", async () => {
    const long = "x".repeat(3000);
    const id = await submit(
      A,
      envelope("ask", A, {
        title: "Long strings",
        tags: [long, "short"],
        agent: { id: A, run_id: "r", runtime: "cli", project: long },
      }),
    );
    const row = await db().message.findUniqueOrThrow({ where: { id } });
    expect([row.project, row.tags]).toEqual([null, ["short"]]);
    const item = await itemForHuman(users.bob as string, id);
    expect([item?.agent.project, item?.tags]).toEqual([long, [long, "short"]]);
  });
});

describe("itemForHuman", () => {
  it("is null without a seat in the message's account, and for unknown ids", async () => {
    const id = await submit(A, envelope("ask", A));
    expect(await itemForHuman(users.gina as string, id)).toBeNull();
    expect(await itemForHuman(users.bob as string, "msg_00000000000000000000000000")).toBeNull();
    expect(await itemForHuman(users.bob as string, "not-an-id")).toBeNull();
  });

  it("never carries state or client_ref", async () => {
    const id = await submit(
      A,
      envelope("ask", A, {
        client_ref: "CLIENT-REF-CANARY",
        state: { sealed: "STATE-CANARY" },
        body: "Body **text**",
        context: [
          { kind: "text", text: "t" },
          { kind: "data", data: { n: 1 } },
          { kind: "file", file: { uri: "https://files.example/a.patch", name: "a.patch" } },
        ],
      }),
    );
    const item = await itemForHuman(users.bob as string, id);
    const text = JSON.stringify(item);
    expect(text).not.toContain("CANARY");
    expect(text).not.toMatch(/client_ref|"state"/);
    expect(item?.context).toEqual([
      { kind: "text", text: "t" },
      { kind: "data", json: '{\n  "n": 1\n}' },
      {
        kind: "file",
        name: "a.patch",
        mimeType: null,
        uri: "https://files.example/a.patch",
        host: "files.example",
        href: "https://files.example/a.patch",
      },
    ]);
  });

  it("canResolve follows roles and allowed_resolvers, as resolveMessage does", async () => {
    const open = await submit(A, envelope("ask", A));
    const listed = await submit(
      A,
      envelope("ask", A, { request: { mode: "confirm", allowed_resolvers: ["human:lara"] } }),
    );
    const view = async (who: string, id: string) => (await itemForHuman(users[who] as string, id))?.can;
    expect(await view("bob", open)).toMatchObject({ refusal: null, answer: true, decline: true });
    expect(await view("vic", open)).toMatchObject({ refusal: "role viewer may read but not resolve", answer: false });
    expect(await view("lara", listed)).toMatchObject({ refusal: null, answer: true });
    expect(await view("bob", listed)).toMatchObject({
      refusal: "you are not in the message's allowed_resolvers",
      answer: false,
    });
    // The verb agrees.
    await expect(
      answerAsHuman(users.bob as string, listed, { kind: "answer", value: "approve" }),
    ).resolves.toMatchObject({ ok: false, code: "not_authorized" });
    await expect(answerAsHuman(users.vic as string, open, { kind: "decline" })).resolves.toMatchObject({
      ok: false,
      code: "not_authorized",
    });
    await expect(answerAsHuman(users.lara as string, listed, { kind: "answer", value: "approve" })).resolves.toEqual({
      ok: true,
      status: "answered",
    });
    // The audit says the answer came from the inbox.
    const audit = await db().auditEvent.findFirstOrThrow({ where: { messageId: listed, event: "message.answered" } });
    expect([audit.actor, audit.detail]).toMatchObject(["human:lara", { channel: "inbox" }]);
  });

  it("honours permissions: allow_respond false leaves decline only, allow_ignore false removes it", async () => {
    const noRespond = await submit(
      A,
      envelope("ask", A, { request: { mode: "confirm", permissions: { allow_respond: false } } }),
    );
    const noIgnore = await submit(
      A,
      envelope("ask", A, { request: { mode: "confirm", permissions: { allow_ignore: false } } }),
    );
    expect((await itemForHuman(users.bob as string, noRespond))?.can).toMatchObject({ answer: false, decline: true });
    expect((await itemForHuman(users.bob as string, noIgnore))?.can).toMatchObject({ answer: true, decline: false });
  });

  it("shows the resolution with actor, time and value; sensitive values are masked", async () => {
    const id = await submit(
      A,
      envelope("ask", A, {
        request: {
          mode: "input",
          schema: {
            type: "object",
            properties: { note: { type: "string" }, key: { type: "string", "x-ma2h-sensitive": true } },
            required: ["key"],
          },
        },
      }),
    );
    const res = await answerAsHuman(users.bob as string, id, {
      kind: "answer",
      input: { note: "hi", key: "SECRET-CANARY" },
      comment: " ok ",
    });
    expect(res).toEqual({ ok: true, status: "answered" });
    const item = await itemForHuman(users.alice as string, id);
    expect(item?.resolution).toMatchObject({
      resolution: "answered",
      actor: "human:bob",
      value: { note: "hi", key: "••••••" },
      comment: "ok",
      edited: false,
    });
    expect(item?.resolution?.resolvedAt).toBe(clock.now().toISOString());
    expect(JSON.stringify(item)).not.toContain("SECRET-CANARY");
    // The agent gets the real value.
    const stored = await db().resolution.findUniqueOrThrow({ where: { messageId: id } });
    expect(JSON.parse(stored.response as string).value).toEqual({ note: "hi", key: "SECRET-CANARY" });
  });
});

describe("answerAsHuman", () => {
  it("edited is set membership (§6): a listed option or a changed prefill is not edited; only an off-menu answer is", async () => {
    const options = [
      { value: "ship", label: "Ship" },
      { value: "hold", label: "Hold" },
    ];
    const select = (over: Record<string, unknown> = {}, version = "0.6") =>
      submit(
        A,
        envelope("ask", A, {
          ma2h_version: version,
          request: { mode: "select", options, default_on_expire: "hold", ...over },
        }),
      );
    const edited = async (id: string) =>
      JSON.parse((await db().resolution.findUniqueOrThrow({ where: { messageId: id } })).response as string).edited;
    // A listed option other than the prefill is answering, not editing.
    const changed = await select();
    await answerAsHuman(users.bob as string, changed, { kind: "answer", value: "ship" });
    expect(await edited(changed)).toBe(false);

    // The free-form answer on a 0.6 select with allow_edit: recorded verbatim, edited.
    const free = await select({ permissions: { allow_edit: true } });
    expect(
      await answerAsHuman(users.bob as string, free, { kind: "answer", value: "hold, until the migration lands" }),
    ).toEqual({ ok: true, status: "answered" });
    expect(await edited(free)).toBe(true);
    // …but never below 0.6, nor without allow_edit: refused, still open.
    for (const id of [await select({ permissions: { allow_edit: true } }, "0.5"), await select()]) {
      expect(await answerAsHuman(users.bob as string, id, { kind: "answer", value: "something else" })).toMatchObject({
        ok: false,
        code: "invalid_field",
      });
      expect((await db().message.findUniqueOrThrow({ where: { id } })).status).toBe("open");
    }

    // Input: a changed prefill is accepted (allow_edit is ignored for input) and never edited.
    const schema = {
      type: "object",
      properties: { note: { type: "string" }, n: { type: "integer" }, on: { type: "boolean" } },
    };
    const typed = await submit(
      A,
      envelope("ask", A, {
        ma2h_version: "0.6",
        request: { mode: "input", schema, default_on_expire: { note: "x", n: 2 }, permissions: { allow_edit: false } },
      }),
    );
    expect(await answerAsHuman(users.bob as string, typed, { kind: "answer", input: { note: "y", n: "2" } })).toEqual({
      ok: true,
      status: "answered",
    });
    expect(await edited(typed)).toBe(false);
  });

  it("an agent's resolve gets the Hub's edited, whatever edited its body claims", async () => {
    const id = await submit(
      A,
      envelope("ask", A, {
        request: {
          mode: "select",
          options: [
            { value: "ship", label: "Ship" },
            { value: "hold", label: "Hold" },
          ],
          default_on_expire: "hold",
        },
      }),
    );
    const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${acme.keys[A]}` })));
    await resolveMessage({ kind: "agent", principal }, id, { resolution: "answered", value: "ship", edited: true });
    const response = JSON.parse(
      (await db().resolution.findUniqueOrThrow({ where: { messageId: id } })).response as string,
    );
    expect(response).toMatchObject({ value: "ship", edited: false, actor: `agent:${A}` });
  });

  it("completes a task with the final checklist, texts from the envelope", async () => {
    const id = await submit(
      A,
      envelope("task", A, {
        action: {
          instructions: "Do",
          checklist: [{ text: "one", done: false }, { text: "two", done: true }, { text: "three" }],
        },
      }),
    );
    expect(
      await answerAsHuman(users.bob as string, id, {
        kind: "complete",
        checklist: [true, false, true],
        comment: "done",
      }),
    ).toEqual({ ok: true, status: "completed" });
    const response = JSON.parse(
      (await db().resolution.findUniqueOrThrow({ where: { messageId: id } })).response as string,
    );
    expect(response).toMatchObject({
      actor: "human:bob",
      comment: "done",
      checklist: [
        { text: "one", done: true },
        { text: "two", done: false },
        { text: "three", done: true },
      ],
    });
  });

  it("losing a race reports who answered, when, and what", async () => {
    const id = await submit(A, envelope("ask", A));
    expect(await answerAsHuman(users.alice as string, id, { kind: "answer", value: "hold", comment: "first" })).toEqual(
      { ok: true, status: "answered" },
    );
    const lost = await answerAsHuman(users.bob as string, id, { kind: "answer", value: "ship" });
    expect(lost).toMatchObject({
      ok: false,
      code: "already_terminal",
      conflict: {
        status: "answered",
        actor: "human:alice",
        value: "hold",
        valueLabel: "Hold",
        comment: "first",
        resolvedAt: clock.now().toISOString(),
      },
    });
  });

  it("bulk decline and complete resolve what they may, and skip the rest with the reason", async () => {
    const ask1 = await submit(A, envelope("ask", A, { title: "b1" }));
    const locked = await submit(
      A,
      envelope("ask", A, { title: "locked", request: { mode: "confirm", permissions: { allow_ignore: false } } }),
    );
    const task = await submit(A, envelope("task", A, { title: "t1" }));
    const listed = await submit(
      A,
      envelope("ask", A, { title: "lara only", request: { mode: "confirm", allowed_resolvers: ["human:lara"] } }),
    );
    const foreign = await submit(A, envelope("ask", A, { title: "theirs" }), other);
    const report = await bulkResolve(users.bob as string, [ask1, locked, task, listed, foreign], "decline");
    expect(report.done).toEqual([
      { id: ask1, title: "b1", status: "declined" },
      { id: task, title: "t1", status: "dismissed" },
    ]);
    expect(report.skipped).toEqual([
      { id: locked, title: "locked", reason: "this ask cannot be declined (permissions.allow_ignore is false)" },
      { id: listed, title: "lara only", reason: "you are not in the message's allowed_resolvers" },
      { id: foreign, title: null, reason: "not found" },
    ]);
    const task2 = await submit(A, envelope("task", A, { title: "t2" }));
    const complete = await bulkResolve(users.bob as string, [task2, ask1], "complete");
    expect(complete.done).toEqual([{ id: task2, title: "t2", status: "completed" }]);
    expect(complete.skipped).toEqual([{ id: ask1, title: "b1", reason: "already declined" }]);
    const vic = await bulkResolve(users.vic as string, [locked], "decline");
    expect(vic.skipped[0]?.reason).toBe("role viewer may read but not resolve");
  });
});
