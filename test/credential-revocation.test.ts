/**
 * Revocation beats the credential cache (lib/principals/credential-cache.ts) across real
 * processes: two built webs on one PostgreSQL, each with its caches warm. A key or PAT revoked, a
 * role changed or a seat removed through web A's own Server Actions (the admin and settings pages'
 * forms) is refused on web A's very next request, and on web B within a second. The CLI, a third
 * process that caches nothing, reaches both webs the same way.
 */
// covers: lib/principals/credential-cache.ts, lib/pubsub/credentials.ts, lib/principals/authenticate.ts
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { addUser } from "../lib/principals/users";
import { createToken } from "../lib/principals/tokens";
import { createWebSession } from "../lib/principals/web-sessions";
import { rotateKey } from "../lib/principals/api-keys";
import { client, repoRoot, TEST_AUTH_SECRET, type HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const hub = useHubFixture({
  accounts: {
    acme: {
      agents: [A, B],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "bob", role: "member" },
        { handle: "carl", role: "member" },
      ],
    },
    globex: { agents: [], humans: [{ handle: "gus", role: "owner" }] },
  },
  count: 2,
  // The cache on at its default; the webs log at info, so a lost LISTEN would show in their output.
  env: { MA2H_AUTH_CACHE_TTL_MS: "5000" },
});

const webA = (): HubProcess => hub.webs[0] as HubProcess;
const webB = (): HubProcess => hub.webs[1] as HubProcess;

/** The build's Server Action id of `name` in `file` (Next's server-reference manifest). */
function actionId(file: string, name: string): string {
  const manifest = JSON.parse(readFileSync(join(repoRoot, ".next/server/server-reference-manifest.json"), "utf8"));
  const found = Object.entries<{ filename?: string; exportedName?: string }>(manifest.node).find(
    ([, e]) => e.filename === file && e.exportedName === name,
  );
  if (!found) throw new Error(`no action ${name} in ${file}`);
  return found[0];
}

/** A signed-in browser of `email`: a database session, as next-auth's adapter stores it. */
async function sessionOf(email: string): Promise<string> {
  const user = await db().user.findUniqueOrThrow({ where: { email } });
  const token = `session-${user.id}-${Math.random()}`;
  await createWebSession(user.id, token, new Date(Date.now() + 3600_000));
  return token;
}

/**
 * Calls a form's Server Action on `web` as React does for `useActionState` (`[prevState, form]`,
 * the form's fields as `_1_<name>` parts), same-origin, with the session cookie.
 */
async function callAction(
  web: HubProcess,
  page: string,
  id: string,
  session: string,
  fields: Record<string, string>,
): Promise<void> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(`_1_${k}`, v);
  form.append("0", '[null,"$K1"]');
  const res = await fetch(web.url + page, {
    method: "POST",
    headers: {
      "next-action": id,
      origin: web.url,
      accept: "text/x-component",
      cookie: `next-auth.session-token=${session}`,
    },
    body: form,
  });
  const text = await res.text();
  expect(res.status, text.slice(0, 500)).toBe(200);
  expect(text, "the action reported success").toContain('"ok":true');
}

/** Polls `probe` on web B until it answers `status`; returns how long that took. */
async function within(ms: number, probe: () => Promise<number>, status: number): Promise<number> {
  const t0 = Date.now();
  await expect.poll(probe, { timeout: ms, interval: 25 }).toBe(status);
  return Date.now() - t0;
}

const drain = (web: HubProcess, key: string) => async () => (await client(web.url, key).get("/v1/inbox")).status;
const presence =
  (web: HubProcess, token: string, slug = "acme") =>
  async () =>
    (await client(web.url, token).get(`/v1/agents/${encodeURIComponent(A)}/presence?account=${slug}`)).status;
const author = (web: HubProcess, token: string) => async () =>
  (await client(web.url, token).post("/v1/directives", { to: `agent:${A}`, title: "ping" })).status;

/** Warms both webs' caches with `probe`, which must answer `ok` on each (several times). */
async function warm(probe: (web: HubProcess) => () => Promise<number>, ok: number): Promise<void> {
  for (const web of [webA(), webB()]) for (let i = 0; i < 3; i++) expect(await probe(web)()).toBe(ok);
}

describe("revocation takes effect at once despite the credential cache", () => {
  it("an API key revoked on web A: refused by A's very next request, by B within a second", async () => {
    const key = hub.account("acme").keys[A] as string;
    const keyRow = await db().apiKey.findFirstOrThrow({ where: { agent: { agentId: A }, revokedAt: null } });
    await warm((w) => drain(w, key), 200);
    const olga = await ownerSession();
    await callAction(webA(), "/admin/acme/agents", actionId("app/admin/actions.ts", "revokeKeyAction"), olga, {
      account: "acme",
      key: keyRow.id,
    });
    expect(await drain(webA(), key)()).toBe(401);
    expect(await within(1000, drain(webB(), key), 401)).toBeLessThan(1000);
    // The other agent's key was not touched.
    expect(await drain(webB(), hub.account("acme").keys[B] as string)()).toBe(200);
  });

  it("a PAT revoked on web A (the person's own settings page): refused by A next, by B within a second", async () => {
    const token = hub.account("acme").tokens.olga as string;
    const row = await db().personalAccessToken.findFirstOrThrow({
      where: { user: { email: "olga@acme.test" }, revokedAt: null },
    });
    await warm((w) => presence(w, token), 200);
    const olga = await sessionOf("olga@acme.test");
    await callAction(webA(), "/settings/tokens", actionId("app/settings/actions.ts", "revokeTokenAction"), olga, {
      token: row.id,
    });
    expect(await presence(webA(), token)()).toBe(401);
    expect(await within(1000, presence(webB(), token), 401)).toBeLessThan(1000);
  });

  it("a role changed on web A (member → viewer): A refuses the next directive, B within a second", async () => {
    const token = hub.account("acme").tokens.bob as string;
    await warm((w) => author(w, token), 201);
    const bob = await db().membership.findFirstOrThrow({ where: { handle: "bob", account: { slug: "acme" } } });
    await callAction(
      webA(),
      "/admin/acme/members",
      actionId("app/admin/actions.ts", "changeRoleAction"),
      await ownerSession(),
      { account: "acme", member: bob.id, role: "viewer" },
    );
    expect(await author(webA(), token)()).toBe(403);
    expect(await within(1000, author(webB(), token), 403)).toBeLessThan(1000);
  });

  it("a seat removed on web A: its account is gone at once on A and within a second on B; the last seat ends the PAT", async () => {
    // dana sits in acme and globex: removing the acme seat leaves her PAT working for globex only.
    await addUser("dana@acme.test", "acme", "dana", "member");
    await addUser("dana@acme.test", "globex", "dana", "member");
    const dana = (await createToken("dana@acme.test")).token;
    const carl = hub.account("acme").tokens.carl as string;
    await warm((w) => presence(w, dana), 200);
    await warm((w) => presence(w, carl), 200);
    const owner = await ownerSession();
    const remove = async (handle: string) => {
      const m = await db().membership.findFirstOrThrow({ where: { handle, account: { slug: "acme" } } });
      await callAction(webA(), "/admin/acme/members", actionId("app/admin/actions.ts", "removeMemberAction"), owner, {
        account: "acme",
        member: m.id,
      });
    };
    await remove("dana");
    expect(await presence(webA(), dana)()).toBe(404);
    expect(await within(1000, presence(webB(), dana), 404)).toBeLessThan(1000);
    await remove("carl"); // carl's last seat: his PATs are revoked with it
    expect(await presence(webA(), carl)()).toBe(401);
    expect(await within(1000, presence(webB(), carl), 401)).toBeLessThan(1000);
  });

  it("the cache is really on: a key revoked behind the Hub's back (raw SQL, no NOTIFY) lives until the TTL", async () => {
    // What makes the other cases mean something: without the NOTIFY, a warm web keeps authenticating
    // the key from its cache, for at most MA2H_AUTH_CACHE_TTL_MS (5 s).
    const rotated = await rotateKey({ agentId: B, accountSlug: "acme" });
    await warm((w) => drain(w, rotated.api_key), 200);
    await db().$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${rotated.key.id}`;
    const t0 = Date.now();
    expect(await drain(webB(), rotated.api_key)()).toBe(200);
    await expect.poll(drain(webB(), rotated.api_key), { timeout: 7000, interval: 100 }).toBe(401);
    expect(Date.now() - t0).toBeLessThan(5500);
  });

  it("a key revoked by the CLI (a third process): refused by both webs within a second", async () => {
    const rotated = await rotateKey({ agentId: B, accountSlug: "acme" });
    await warm((w) => drain(w, rotated.api_key), 200);
    const run = spawnSync(process.execPath, ["bin/ma2h-hub.js", "key", "revoke", rotated.key.id], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: hub.databaseUrl, AUTH_SECRET: TEST_AUTH_SECRET },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr + run.stdout).toBe(0);
    const [a, b] = await Promise.all([
      within(1000, drain(webA(), rotated.api_key), 401),
      within(1000, drain(webB(), rotated.api_key), 401),
    ]);
    expect(Math.max(a, b)).toBeLessThan(1000);
  });
});

/** olga's PAT was revoked above, not her browser: her session still administers acme. */
async function ownerSession(): Promise<string> {
  return sessionOf("olga@acme.test");
}
