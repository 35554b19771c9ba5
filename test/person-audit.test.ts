/**
 * A person's own events are theirs: PAT, notification-preference and identity events go to
 * the person's own audit stream — never into an account they merely have a seat in — readable by
 * them on /settings/activity (newest first, paged) and on no account's audit page or export. And a
 * person's identities: listed, one removed while another remains, the last refused, someone else's
 * 404. The verbs run in-process against this file's database; the pages over HTTP on the built web.
 */
// covers: lib/audit/log.ts, lib/principals/identities.ts, app/settings/activity/page.tsx, app/settings/identities/page.tsx
import { describe, expect, it } from "vitest";
import { listAudit, listPersonAudit } from "../lib/audit/log";
import { db } from "../lib/db";
import { BUILT_IN } from "../lib/notifications/preferences";
import { resetPreferences, savePreferences } from "../lib/notifications/preferences-store";
import { HubError } from "@ma2h/protocol/errors";
import { bindIdentity, listIdentities, unlinkIdentity } from "../lib/principals/identities";
import { seatFor } from "../lib/principals/seats";
import { createTokenForUser, revokeToken } from "../lib/principals/tokens";
import { addUser } from "../lib/principals/users";
import { createWebSession, humanForSessionToken, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { useHubFixture } from "./support/hub-fixture";

const hub = useHubFixture({
  accounts: {
    acme: { agents: ["bot/acme"], humans: [{ handle: "alice", role: "owner" }] },
    globex: { agents: ["bot/globex"], humans: [{ handle: "gina", role: "owner" }] },
  },
  // bob is a member of both accounts; each account's owner reads its audit log.
  setup: async () => {
    await addUser("bob@both.test", "acme", "bob", "member");
    await addUser("bob@both.test", "globex", "bobby", "member");
  },
});

const userId = async (email: string) => (await db().user.findUniqueOrThrow({ where: { email } })).id;
const accountId = async (slug: string) => (await db().account.findUniqueOrThrow({ where: { slug } })).id;

async function session(email: string): Promise<string> {
  const token = `sess-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  await createWebSession(await userId(email), token, new Date(Date.now() + 3_600_000));
  return token;
}

async function get(path: string, token: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${hub.url}${path}`, {
    headers: { cookie: `${SESSION_COOKIE_NAMES[1]}=${token}` },
    redirect: "manual",
  });
  return { status: res.status, text: await res.text() };
}

/** Every row of an account's log, all kinds and actors. */
async function accountLog(slug: string) {
  return (await listAudit(await accountId(slug), {}, { limit: 500 })).entries;
}

describe("token events", () => {
  it("a PAT's create and revoke are in the person's stream, in no account's audit log, page or export", async () => {
    const bob = await userId("bob@both.test");
    const { id } = await createTokenForUser(bob, { self: true });
    await revokeToken(id, { self: true, owner: bob });

    const mine = (await listPersonAudit(bob)).entries.filter((e) => JSON.stringify(e.detail).includes(id));
    expect(mine.map((e) => [e.event, e.actor])).toEqual([
      ["token.revoked", `user:${bob}`],
      ["token.created", `user:${bob}`],
    ]);
    for (const slug of ["acme", "globex"]) {
      const log = await accountLog(slug);
      expect(
        log.filter((e) => e.event.startsWith("token.")),
        slug,
      ).toEqual([]);
      expect(JSON.stringify(log), slug).not.toContain(id);
    }

    // Over HTTP: each account's owner sees nothing of it on the audit page or in the export.
    for (const [slug, owner] of [
      ["acme", "alice@acme.test"],
      ["globex", "gina@globex.test"],
    ] as const) {
      const token = await session(owner);
      const page = await get(`/admin/${slug}/audit`, token);
      expect(page.status).toBe(200);
      expect(page.text).toContain('data-testid="audit-row"'); // the page does list the account's own rows
      expect(page.text).not.toContain(id);
      expect(page.text).not.toContain("token.created");
      const exported = await get(`/admin/${slug}/audit/export`, token);
      expect(exported.status).toBe(200);
      expect(exported.text.length).toBeGreaterThan(0);
      expect(exported.text).not.toContain(id);
      expect(exported.text).not.toContain('"token.');
    }

    // The person reads it on /settings/activity; nobody else's activity shows it.
    const bobPage = await get("/settings/activity", await session("bob@both.test"));
    expect(bobPage.status).toBe(200);
    expect(bobPage.text).toContain(id);
    expect(bobPage.text).toContain('data-event="token.revoked"');
    const alicePage = await get("/settings/activity", await session("alice@acme.test"));
    expect(alicePage.status).toBe(200);
    expect(alicePage.text).not.toContain(id);
  });

  it("a token the operator issues (the CLI) is in the person's stream with the operator as actor", async () => {
    const alice = await userId("alice@acme.test");
    // useHubFixture issued alice's PAT through the CLI's verb.
    const rows = (await listPersonAudit(alice)).entries.filter((e) => e.event === "token.created");
    expect(rows.map((e) => e.actor)).toContain("system:cli");
    expect((await accountLog("acme")).filter((e) => e.event.startsWith("token."))).toEqual([]);
  });
});

describe("preference events", () => {
  it("a save and a reset are the person's, naming the account, and absent from the account's log", async () => {
    const bob = await userId("bob@both.test");
    const seat = await seatFor(bob, await accountId("globex"));
    if (!seat) throw new Error("bob has no globex seat");
    await savePreferences(bob, seat, { ...BUILT_IN, timeZone: "Europe/Berlin" });
    await resetPreferences(bob, seat);
    const rows = (await listPersonAudit(bob)).entries.filter((e) => e.event.startsWith("notification."));
    expect(rows.map((e) => [e.event, e.detail])).toEqual([
      ["notification.preferences_reset", { account: "globex" }],
      ["notification.preferences_changed", { account: "globex", changed: ["timeZone"] }],
    ]);
    expect(JSON.stringify(rows)).not.toContain("Berlin");
    for (const slug of ["acme", "globex"])
      expect((await accountLog(slug)).filter((e) => e.event.startsWith("notification.preferences"))).toEqual([]);
  });
});

describe("the person's stream", () => {
  it("is paged newest first on /settings/activity", async () => {
    const gina = await userId("gina@globex.test");
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push((await createTokenForUser(gina, { self: true })).id);
    const first = await listPersonAudit(gina, { limit: 50 });
    expect(first.entries).toHaveLength(50);
    expect(first.entries[0]?.detail).toEqual({ token_id: ids.at(-1) });
    expect(first.next).not.toBeNull();
    const second = await listPersonAudit(gina, { limit: 50, before: first.next ?? undefined });
    expect(second.entries.length).toBe(6); // 5 more of these + the CLI's token at provisioning
    expect(second.next).toBeNull();
    const seen = [...first.entries, ...second.entries].map((e) => e.id);
    expect(new Set(seen).size).toBe(seen.length);

    const token = await session("gina@globex.test");
    const page1 = await get("/settings/activity", token);
    expect(page1.text.match(/data-testid="activity-row"/g)).toHaveLength(50);
    expect(page1.text.indexOf(ids.at(-1) as string)).toBeLessThan(page1.text.indexOf(ids.at(-2) as string));
    const older =
      /data-testid="activity-older"[^>]*href="([^"]+)"|href="([^"]+)"[^>]*data-testid="activity-older"/.exec(
        page1.text,
      );
    const href = (older?.[1] ?? older?.[2] ?? "").replace(/&amp;/g, "&");
    expect(href).toMatch(/^\/settings\/activity\?before=/);
    const page2 = await get(href, token);
    expect(page2.text.match(/data-testid="activity-row"/g)).toHaveLength(6);
    expect(page2.text).toContain(ids[0]);
  });

  it("holds exactly one stream per row and stays append-only", async () => {
    const bob = await userId("bob@both.test");
    await expect(
      db().$executeRaw`INSERT INTO audit_events (actor, event, at) VALUES ('system:test', 'token.created', now())`,
    ).rejects.toThrow(/audit_events_one_stream/);
    await expect(
      db().$executeRaw`INSERT INTO audit_events (account_id, user_id, actor, event, at)
        VALUES (${await accountId("acme")}, ${bob}, 'system:test', 'token.created', now())`,
    ).rejects.toThrow(/audit_events_one_stream/);
    const row = await db().auditEvent.findFirstOrThrow({ where: { userId: bob } });
    await expect(db().auditEvent.update({ where: { id: row.id }, data: { actor: "x" } })).rejects.toThrow(
      /append-only/,
    );
  });
});

describe("identities", () => {
  const ISS = "https://idp.example";

  it("are listed; one is removed while another remains (other sessions end); the last is refused", async () => {
    const bob = await userId("bob@both.test");
    await bindIdentity(bob, "oidc", ISS, "bob-one");
    await bindIdentity(bob, "oidc", ISS, "bob-two");
    await bindIdentity(bob, "oidc", ISS, "bob-two"); // idempotent: one row, one audit
    const listed = await listIdentities(bob);
    expect(listed.map((i) => [i.issuer, i.subject, i.lastSignInAt])).toEqual([
      [ISS, "bob-one", null],
      [ISS, "bob-two", null],
    ]);

    const here = await session("bob@both.test");
    const elsewhere = await session("bob@both.test");
    const page = await get("/settings/identities", here);
    expect(page.status).toBe(200);
    expect(page.text.match(/data-testid="identity-row"/g)).toHaveLength(2);
    expect(page.text).toContain("bob-one");
    expect(page.text).toContain(`unlink-identity-${listed[0]?.id}`);

    // Someone else's identity is 404 and stays.
    const alice = await userId("alice@acme.test");
    const err = await unlinkIdentity(alice, listed[0]?.id as string).catch((e: unknown) => e);
    expect((err as HubError).code).toBe("not_found");
    expect(await listIdentities(bob)).toHaveLength(2);

    await unlinkIdentity(bob, listed[0]?.id as string, here);
    expect((await listIdentities(bob)).map((i) => i.subject)).toEqual(["bob-two"]);
    expect(await humanForSessionToken(here)).not.toBeNull();
    expect(await humanForSessionToken(elsewhere)).toBeNull();

    const last = await unlinkIdentity(bob, listed[1]?.id as string, here).catch((e: unknown) => e);
    expect(last).toBeInstanceOf(HubError);
    expect((last as HubError).code).toBe("invalid_field");
    expect((last as HubError).message).toMatch(/only sign-in identity/);
    expect((await listIdentities(bob)).map((i) => i.subject)).toEqual(["bob-two"]);
    const after = await get("/settings/identities", here);
    expect(after.text).toContain('data-testid="identity-last"');
    expect(after.text).not.toContain("unlink-identity-");

    const stream = (await listPersonAudit(bob)).entries.filter((e) => e.event.startsWith("identity."));
    expect(stream.map((e) => [e.event, (e.detail as { subject?: string }).subject])).toEqual([
      ["identity.unlinked", "bob-one"],
      ["identity.linked", "bob-two"],
      ["identity.linked", "bob-one"],
    ]);
    for (const slug of ["acme", "globex"])
      expect((await accountLog(slug)).filter((e) => e.event.startsWith("identity."))).toEqual([]);
  });

  it("two removals at once cannot take the last two", async () => {
    const gina = await userId("gina@globex.test");
    await bindIdentity(gina, "oidc", ISS, "gina-one");
    await bindIdentity(gina, "oidc", ISS, "gina-two");
    const ids = (await listIdentities(gina)).map((i) => i.id);
    const results = await Promise.allSettled(ids.map((id) => unlinkIdentity(gina, id)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await listIdentities(gina)).toHaveLength(1);
  });
});
