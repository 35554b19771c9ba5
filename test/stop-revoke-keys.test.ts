/**
 * §16.4.1's stop binds registration only: an agent's API keys keep working outside sessions. The
 * agent page's "Stop and revoke keys" (lib/sessions/stop.ts `stopAgentAndRevokeKeys`) stops the
 * agent and revokes every key of it in one transaction, audited once as `agent.stopped` naming the
 * keys (and `key.revoked` per key), on the running web: the web's own credential cache drops the keys
 * on the NOTIFY, so a submit after it is `401`. Owners and admins only; other agents are untouched.
 */
// covers: lib/sessions/stop.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { seatFor } from "../lib/principals/seats";
import { agentForStop } from "../lib/sessions/access";
import { stopAgent, stopAgentAndRevokeKeys } from "../lib/sessions/stop";
import { envelope } from "./support/envelope";
import { useHubFixture } from "./support/hub-fixture";

const hub = useHubFixture({
  accounts: {
    acme: {
      agents: ["stop/only", "stop/keys", "bystander"],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "mia", role: "member" },
      ],
    },
  },
  server: "web",
});

async function seat(handle: string) {
  const user = await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` } });
  const account = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
  const s = await seatFor(user.id, account.id);
  if (!s) throw new Error(`no seat for ${handle}`);
  return s;
}

const submit = (agent: string) => hub.agent(agent, "acme").post("/v1/messages", envelope("notify", agent));

describe("stop and revoke keys", () => {
  it("a plain stop leaves the key submitting outside sessions (what Stop does not do)", async () => {
    const olga = await seat("olga");
    await stopAgent(olga, await agentForStop(olga, "stop/only"));
    expect((await submit("stop/only")).status).toBe(202);
    expect((await hub.agent("stop/only", "acme").post("/v1/sessions", {})).status).toBe(403);
  });

  it("stops and revokes every key in one audited step; the key is refused as soon as the web hears of it; others untouched", async () => {
    const mia = await seat("mia");
    await expect(stopAgentAndRevokeKeys(mia, await agentForStop(mia, "stop/keys"))).rejects.toMatchObject({
      code: "not_authorized",
    });
    expect((await submit("stop/keys")).status).toBe(202); // the member changed nothing (and warmed the cache)

    const olga = await seat("olga");
    const target = await agentForStop(olga, "stop/keys");
    const keys = await db().apiKey.findMany({ where: { agentRowId: target.rowId }, select: { id: true } });
    expect(keys.length).toBeGreaterThan(0);
    const r = await stopAgentAndRevokeKeys(olga, target);
    expect(r).toEqual({ agent_id: "stop/keys", stopped: true, keys_revoked: keys.map((k) => k.id) });

    // The revocation committed here, not in the web: the web's cache drops the keys when the
    // NOTIFY arrives — well within a second even on a loaded box (bounded, not a fixed sleep).
    const t0 = Date.now();
    await expect.poll(async () => (await submit("stop/keys")).status, { timeout: 5000, interval: 25 }).toBe(401);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await hub.agent("stop/keys", "acme").post("/v1/sessions", {})).status).toBe(401);
    expect(await db().agentStop.count({ where: { agentRowId: target.rowId } })).toBe(1);
    expect(await db().apiKey.count({ where: { agentRowId: target.rowId, revokedAt: null } })).toBe(0);
    expect((await submit("bystander")).status).toBe(202);

    const audit = await db().auditEvent.findMany({
      where: { accountId: target.accountId, event: { in: ["agent.stopped", "key.revoked"] } },
      orderBy: { id: "asc" },
    });
    const mine = audit.filter((a) => (a.detail as { agent_id?: string }).agent_id === "stop/keys");
    expect(mine.map((a) => [a.event, a.actor])).toEqual([
      ["agent.stopped", "human:olga"],
      ...keys.map(() => ["key.revoked", "human:olga"]),
    ]);
    expect(mine[0]?.detail).toMatchObject({ keys_revoked: keys.map((k) => k.id) });

    // Again: nothing left to do, nothing written.
    expect((await stopAgentAndRevokeKeys(olga, target)).keys_revoked).toEqual([]);
    expect(
      await db().auditEvent.count({
        where: { accountId: target.accountId, event: { in: ["agent.stopped", "key.revoked"] } },
      }),
    ).toBe(audit.length);
  });
});
