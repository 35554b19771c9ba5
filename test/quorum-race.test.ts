/**
 * Quorum approvals under real concurrency (docs/policies.md "Quorum"): two web processes on one
 * database and a worker delivering pushes. Two people approving a 2-of-N ask at the same moment,
 * one on each process, make exactly one terminal Response — one 200 and one 202, both approvals
 * recorded, one `message.answered` — and the pushed Response verifies as an agent verifies it; a
 * third at the same moment gets 409. And the agent's `ma2h ask confirm` (packages/agent, built)
 * exits 0 only after the second approval.
 */
// covers: lib/messages/approvals.ts, lib/messages/approvals.sql.ts, lib/messages/resolve.ts
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { EXIT } from "../packages/agent/src/cli/exit-codes";
import { start, tempDir } from "../packages/agent/test/cli-kit";
import { AgentVerifier } from "./support/agent-verify";
import { client, type HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { approveOrigin } from "./support/provision";
import { startWorker, submitPush } from "./support/push-kit";
import { validateOfficial } from "./support/spec";
import { staysFalse } from "./support/wait";

const A = "deploybot/prod";
/** An agent whose asks need three approvals: votes that leave the ask open race too. */
const B = "deploybot/stage";
const SECRET = "quorum-race-secret";
const PEOPLE = ["alice", "bob", "carol", "dan"];
let worker: HubProcess | undefined;
const fx = useHubFixture({
  accounts: { acme: { agents: [A, B], humans: PEOPLE.map((handle) => ({ handle, role: "member" as const })) } },
  count: 2,
  receivers: 1,
  setup: async (h) => {
    await approveOrigin(A, "acme", h.receiver.origin, "cb", SECRET);
    await approveOrigin(B, "acme", h.receiver.origin, "cb", SECRET);
    const account = await db().account.findUniqueOrThrow({ where: { slug: "acme" }, select: { id: true } });
    await applyPolicy(
      account.id,
      PolicyFileSchema.parse({
        version: 1,
        rules: [
          {
            name: "two-of-four",
            match: { agent: A, mode: ["confirm", "select"] },
            assign: PEOPLE.map((p) => `human:${p}`),
            approvals: 2,
          },
          {
            name: "three-of-four",
            match: { agent: B, mode: ["confirm", "select"] },
            assign: PEOPLE.map((p) => `human:${p}`),
            approvals: 3,
          },
        ],
      }),
      { actor: "system:cli" },
    );
  },
  env: (h) => ({ MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin }),
});
const acme = fx.account("acme");

beforeAll(async () => {
  worker = await startWorker(fx.databaseUrl, { MA2H_DEV_CALLBACK_ALLOWLIST: fx.receiver.origin });
});
afterAll(async () => {
  await worker?.stop();
});

const approveOn = (hub: number, handle: string, id: string) =>
  client(fx.webs[hub]?.url as string, acme.tokens[handle]).post(`/v1/messages/${id}/resolve`, {
    resolution: "answered",
    value: "approve",
    comment: `by ${handle}`,
  });

describe("two people completing a quorum at the same moment", () => {
  it("exactly one terminal Response, both approvals recorded, the push verifies — 10 times, and three at once", async () => {
    for (let round = 0; round < 10; round++) {
      const three = round === 9;
      const path = `/q/${round}`;
      const sent = await submitPush(
        fx.webs[0]?.url as string,
        acme.keys[A] as string,
        A,
        `${fx.receiver.origin}${path}`,
        { scheme: "hmac", secret_ref: "cb" },
        { over: { request: { mode: "confirm" } }, name: path },
      );
      const voters = three ? ["alice", "bob", "carol"] : round % 2 ? ["bob", "carol"] : ["alice", "dan"];
      const results = await Promise.all(voters.map((h, i) => approveOn(i % 2, h, sent.id)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, JSON.stringify(results.map((r) => r.body))).toEqual(three ? [200, 202, 409] : [200, 202]);
      const winner = voters[results.findIndex((r) => r.status === 200)];
      const pending = results.find((r) => r.status === 202);
      expect(pending?.body).toEqual({ id: sent.id, status: "open", approvals: { have: 1, need: 2 } });
      expect(await db().resolution.count({ where: { messageId: sent.id } })).toBe(1);
      expect(await db().approvalVote.count({ where: { messageId: sent.id } })).toBe(2);
      const audit = await db().auditEvent.findMany({ where: { messageId: sent.id }, select: { event: true } });
      expect(audit.filter((e) => e.event === "message.answered")).toHaveLength(1);
      expect(audit.filter((e) => e.event === "approval.recorded")).toHaveLength(2);

      const [got] = await fx.receiver.waitFor(path, 1, 20_000);
      const verdict = await new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [SECRET] }).verify(
        got?.headers ?? {},
        got?.body ?? "",
        (got?.at ?? 0) / 1000,
      );
      expect(verdict).toMatchObject({ ok: true });
      if (!verdict.ok) throw new Error("unverified");
      expect(validateOfficial("response.schema.json", verdict.body)).toEqual([]);
      expect(verdict.body).toMatchObject({
        in_reply_to: sent.id,
        resolution: "answered",
        response: { value: "approve", actor: `human:${winner}`, comment: `by ${winner}` },
      });
    }
    expect(fx.receiver.requests).toHaveLength(10); // one push per ask, never a second
  });
});

describe("votes that leave the ask open, at the same moment", () => {
  it("three of four: four at once make one Response, three votes and a 409 — none lost to another, 5 times", async () => {
    for (let round = 0; round < 5; round++) {
      const path = `/three/${round}`;
      const sent = await submitPush(
        fx.webs[0]?.url as string,
        acme.keys[B] as string,
        B,
        `${fx.receiver.origin}${path}`,
        { scheme: "hmac", secret_ref: "cb" },
        { over: { request: { mode: "confirm" } }, name: path },
      );
      const results = await Promise.all(PEOPLE.map((h, i) => approveOn(i % 2, h, sent.id)));
      expect(results.map((r) => r.status).sort(), JSON.stringify(results.map((r) => r.body))).toEqual([
        200, 202, 202, 409,
      ]);
      // The two left open saw one and two approvals: each counted the other's.
      expect(
        results
          .filter((r) => r.status === 202)
          .map((r) => r.body.approvals.have)
          .sort(),
      ).toEqual([1, 2]);
      expect(await db().resolution.count({ where: { messageId: sent.id } })).toBe(1);
      expect(await db().approvalVote.count({ where: { messageId: sent.id } })).toBe(3);
      const audit = await db().auditEvent.findMany({
        where: { messageId: sent.id },
        select: { event: true },
        orderBy: { id: "asc" },
      });
      expect(audit.map((e) => e.event).filter((e) => !e.startsWith("response."))).toEqual([
        "message.submitted",
        "approval.recorded",
        "approval.recorded",
        "approval.recorded",
        "message.answered",
      ]);
      await fx.receiver.waitFor(path, 1, 20_000);
    }
  });
});

describe("the agent's ma2h ask confirm", () => {
  it("exits 0 only after the second approval", async () => {
    const run = start(["ask", "confirm", "Deploy 200?"], {
      MA2H_URL: fx.webs[0]?.url,
      MA2H_API_KEY: acme.keys[A],
      MA2H_AGENT_ID: A,
      MA2H_STORE_DIR: tempDir("quorum-cli"),
    });
    const [, id] = await run.stderrMatch(/asked (msg_[0-9a-z]+)/u);
    expect((await approveOn(1, "carol", id as string)).status).toBe(202);
    await staysFalse(() => run.child.exitCode !== null, 1500, "ma2h exiting after one approval of two");
    expect((await approveOn(0, "dan", id as string)).status).toBe(200);
    expect(await run.done).toMatchObject({ code: EXIT.ok, stdout: "approve\n" });
  });
});
