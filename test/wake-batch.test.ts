/**
 * Long-polls woken together are answered together (§8.2, §14.2): one burst of answers wakes many
 * parked `?wait=` requests of one process, whose re-reads share one statement and whose
 * delivered-to-agent stamps share one statement and one commit — each stamp still first-wins, with
 * the same audit row (event, actor, detail) the single stamp writes, and the same delivered time in
 * the body as in the row.
 */
// covers: lib/messages/row-read.ts, lib/messages/delivery-track.ts, lib/messages/delivery-track.sql.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { runStampDeliveredMany } from "../lib/messages/delivery-track.sql";
import { readMessageRowBatched } from "../lib/messages/row-read";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const A = "batchbot";
const B = "otherbot";
const fx = useHubFixture({
  server: "in-process",
  accounts: { acme: { agents: [A, B], humans: [{ handle: "alice", role: "owner" }] } },
});

async function submitAsks(agentId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fx.agent(agentId, "acme").post("/v1/messages", envelope("ask", agentId));
    expect(res.status).toBe(202);
    ids.push(res.body.id);
  }
  return ids;
}

describe("long-polls woken together", () => {
  it("are each answered with their own message, stamped once each with the single stamp's audit row", async () => {
    const mine = await submitAsks(A, 6);
    const theirs = await submitAsks(B, 2);
    const agent = fx.agent(A, "acme");
    const other = fx.agent(B, "acme");
    const parked = [
      ...mine.map((id) => agent.get(`/v1/messages/${id}?wait=30`)),
      ...theirs.map((id) => other.get(`/v1/messages/${id}?wait=30`)),
    ];
    await new Promise((ok) => setTimeout(ok, 300)); // parked
    const alice = fx.human("alice", "acme");
    // One burst: the answers commit back to back and their NOTIFYs arrive together.
    const answers = await Promise.all(
      [...mine, ...theirs].map((id) =>
        alice.post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "ship" }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const bodies = await Promise.all(parked);
    for (const [i, res] of bodies.entries()) {
      expect(res.status).toBe(200);
      expect(res.body.id).toBe([...mine, ...theirs][i]);
      expect(res.body.status).toBe("answered");
      expect(res.body.response.resolution_id).toBe(answers[i]!.body.resolution_id);
      expect(res.body.delivery?.state).toBe("delivered-to-agent");
    }
    for (const [i, id] of [...mine, ...theirs].entries()) {
      const r = await db().resolution.findUniqueOrThrow({ where: { messageId: id } });
      expect(bodies[i]!.body.delivery.delivered_at).toBe(r.deliveredToAgentAt?.toISOString());
      const audits = await db().auditEvent.findMany({
        where: { messageId: id, event: "response.delivered_to_agent" },
      });
      expect(audits).toHaveLength(1);
      expect(audits[0]).toMatchObject({
        actor: `agent:${i < mine.length ? A : B}`,
        detail: { resolution_id: r.id, via: "pull" },
      });
    }
  });

  it("the many-stamp statement is first-wins per resolution, and the batched read returns each row", async () => {
    const ids = await submitAsks(A, 3);
    const alice = fx.human("alice", "acme");
    const resolutions: string[] = [];
    for (const id of ids) {
      const res = await alice.post(`/v1/messages/${id}/resolve`, { resolution: "answered", value: "hold" });
      resolutions.push(res.body.resolution_id);
    }
    const at = new Date();
    // The first is stamped already: only the other two win, and the first keeps its time.
    const first = await runStampDeliveredMany([
      { resolutionId: resolutions[0]!, at, via: "push", actor: "system:push" },
    ]);
    expect([...first]).toEqual([resolutions[0]]);
    const later = new Date(at.getTime() + 1000);
    const won = await runStampDeliveredMany(
      resolutions.map((resolutionId) => ({ resolutionId, at: later, via: "pull" as const, actor: `agent:${A}` })),
    );
    expect([...won].sort()).toEqual([resolutions[1], resolutions[2]].sort());
    const rows = await Promise.all([...ids, "msg_unknown"].map((id) => readMessageRowBatched(id)));
    expect(rows.map((r) => r?.id ?? null)).toEqual([...ids, null]);
    expect(rows[0]?.resolution?.deliveredToAgentAt?.getTime()).toBe(at.getTime());
    expect(rows[1]?.resolution?.deliveredToAgentAt?.getTime()).toBe(later.getTime());
    const audits = await db().auditEvent.findMany({
      where: { messageId: { in: ids }, event: "response.delivered_to_agent" },
      orderBy: { id: "asc" },
    });
    expect(audits.map((a) => [a.messageId, a.actor, (a.detail as { via: string }).via])).toEqual([
      [ids[0], "system:push", "push"],
      [ids[1], `agent:${A}`, "pull"],
      [ids[2], `agent:${A}`, "pull"],
    ]);
  });
});
