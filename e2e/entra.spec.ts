/**
 * Sign-in through an issuer configured as Microsoft Entra ID (MA2H_OIDC_KIND=entra), with groups
 * from the ID token (MA2H_OIDC_GROUPS_CLAIM=groups). The run's Hub is a generic OIDC Hub, so this
 * spec starts its own pair on the run's database: the dev IdP playing Entra — work accounts with
 * `xms_edov` and no `email_verified`, a `groups` claim of object ids released with the `groups`
 * scope the Hub asks for (MA2H_OIDC_EXTRA_SCOPES) — and a web process pointed at it. People of the
 * contoso account (e2e/global-setup.ts) only.
 *
 * An Entra-style person gets in; the same without `xms_edov` is refused; a mapped groups-claim value
 * makes the person a member from the identity provider, a later sign-in without it takes that row
 * away but not a manual one; an overage changes nothing and is a warning naming only the person.
 */
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type DevIdp, startDevIdp } from "../scripts/dev-idp-provider";
import { db } from "../lib/db";
import { IDP_SYNC_ACTOR, addGroupMapping } from "../lib/groups/claims";
import { addGroupMember, createGroup } from "../lib/groups/groups";
import { freePort, repoRoot, startHub, type HubProcess } from "../test/support/hub";
import { releaseDatabase, useDatabase } from "../test/support/provision";
import { expect, sessionCookie, signIn, test } from "./support/fixtures";
import { e2eState } from "./support/state";

const PLATFORM_ID = "6f1c2a9e-0b3d-4c5e-8f70-1a2b3c4d5e6f";
const ONCALL_ID = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d";
const CLIENT = { id: "ma2h-e2e-entra", secret: "ma2h-e2e-entra-secret" };

let idp: DevIdp;
let web: HubProcess;
let at: { hubUrl: string; idpIssuer: string };
let contosoId: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const port = await freePort();
  const hubUrl = `http://127.0.0.1:${port}`;
  idp = await startDevIdp({
    clients: [
      { client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris: [`${hubUrl}/api/auth/callback/oidc`] },
    ],
    accounts: [
      {
        login: "pat",
        email: "pat@contoso.test",
        email_verified: null,
        xms_edov: true,
        groups: [PLATFORM_ID, ONCALL_ID, "0b0b0b0b-unmapped-group"],
      },
      // An Entra work account whose email domain the tenant has not verified: no xms_edov.
      { login: "quinn", email: "quinn@contoso.test", email_verified: null, groups: [PLATFORM_ID] },
    ],
    allowUnknownLogins: false,
    log: () => {},
  });
  await useDatabase(e2eState().databaseUrl);
  contosoId = (await db().account.findUniqueOrThrow({ where: { slug: "contoso" } })).id;
  await createGroup(contosoId, "platform", "from Entra");
  await createGroup(contosoId, "oncall", undefined);
  await addGroupMapping(contosoId, "group:platform", PLATFORM_ID);
  await addGroupMapping(contosoId, "group:oncall", ONCALL_ID);
  await addGroupMember(contosoId, "group:oncall", "human:pat"); // by hand: no sign-in takes it away
  web = await startHub({
    databaseUrl: e2eState().databaseUrl,
    mode: "web",
    port,
    env: {
      AUTH_OIDC_ISSUER: idp.issuer,
      AUTH_OIDC_CLIENT_ID: CLIENT.id,
      AUTH_OIDC_CLIENT_SECRET: CLIENT.secret,
      AUTH_OIDC_NAME: "Microsoft (dev)",
      MA2H_OIDC_KIND: "entra",
      MA2H_OIDC_GROUPS_CLAIM: "groups",
      MA2H_OIDC_EXTRA_SCOPES: "groups",
    },
  });
  const outDir = join(repoRoot, "test-results");
  mkdirSync(outDir, { recursive: true });
  const log = createWriteStream(join(outDir, "e2e-entra-web.log"));
  log.write(web.output());
  web.child.stdout?.on("data", (d: Buffer) => log.write(d));
  web.child.stderr?.on("data", (d: Buffer) => log.write(d));
  at = { hubUrl, idpIssuer: idp.issuer };
});

test.afterAll(async () => {
  await web?.stop();
  await idp?.stop();
  await releaseDatabase();
});

/** pat's contoso group rows: group name → source. */
async function groupsOfPat(): Promise<Record<string, string>> {
  const rows = await db().groupMember.findMany({
    where: { membership: { accountId: contosoId, handle: "pat" } },
    select: { source: true, group: { select: { name: true } } },
  });
  return Object.fromEntries(rows.map((r) => [r.group.name, r.source]));
}

/** Signs `login` in from a fresh browser (the IdP asks again) and returns where it landed. */
async function signInFresh(browser: import("@playwright/test").Browser, login: string) {
  const context = await browser.newContext({ baseURL: at.hubUrl });
  const page = await context.newPage();
  const landed = await signIn(page, login, "/inbox", at);
  return { context, page, landed };
}

test("an Entra work account (xms_edov, no email_verified) gets in, and its groups claim makes it a member", async ({
  browser,
}) => {
  const { context, page, landed } = await signInFresh(browser, "pat");
  expect(landed.pathname).toBe("/inbox");
  const session = await (await page.request.get("/api/auth/session")).json();
  expect(session.user?.email).toBe("pat@contoso.test");
  await context.close();
  const pat = await db().user.findUniqueOrThrow({
    where: { email: "pat@contoso.test" },
    include: { identities: true },
  });
  expect(pat.identities.map((i) => i.issuer)).toEqual([idp.issuer]);
  // The claim came in the ID token (next-auth's profile), released for the `groups` scope.
  expect(await groupsOfPat()).toEqual({ platform: "idp", oncall: "manual" });
});

test("the same without xms_edov is refused, and changes nothing", async ({ browser }) => {
  const { context, page, landed } = await signInFresh(browser, "quinn");
  expect(landed.pathname).toBe("/signin");
  expect(landed.searchParams.get("error")).toBe("AccessDenied");
  await expect(page.getByTestId("signin-error")).toBeVisible();
  expect(await sessionCookie(context)).toBeUndefined();
  await context.close();
  const quinn = await db().user.findUniqueOrThrow({
    where: { email: "quinn@contoso.test" },
    include: { identities: true },
  });
  expect(quinn.identities).toEqual([]);
  expect(await db().groupMember.count({ where: { membership: { userId: quinn.id } } })).toBe(0);
});

test("a later sign-in without the value takes the idp row away, not the manual one", async ({ browser }) => {
  idp.updateAccount("pat", { groups: ["0b0b0b0b-unmapped-group"] });
  const { context, landed } = await signInFresh(browser, "pat");
  expect(landed.pathname).toBe("/inbox");
  await context.close();
  expect(await groupsOfPat()).toEqual({ oncall: "manual" });
  const trail = await db().auditEvent.findMany({
    where: { accountId: contosoId, actor: IDP_SYNC_ACTOR },
    orderBy: { id: "asc" },
    select: { event: true, detail: true },
  });
  expect(trail).toEqual([
    { event: "group.member_added", detail: { group: "platform", handle: "pat", source: "idp" } },
    { event: "group.member_removed", detail: { group: "platform", handle: "pat", source: "idp" } },
  ]);
});

test("an overage pointer in place of the claim changes nothing and is a warning naming only the person", async ({
  browser,
}) => {
  idp.updateAccount("pat", { groups: [PLATFORM_ID] });
  await (await signInFresh(browser, "pat")).context.close();
  expect(await groupsOfPat()).toEqual({ platform: "idp", oncall: "manual" });

  idp.updateAccount("pat", { groupsOverage: true });
  const before = web.output().length;
  const { context, landed } = await signInFresh(browser, "pat");
  expect(landed.pathname).toBe("/inbox");
  await context.close();
  expect(await groupsOfPat()).toEqual({ platform: "idp", oncall: "manual" });
  const patId = (await db().user.findUniqueOrThrow({ where: { email: "pat@contoso.test" } })).id;
  const lines = web
    .output()
    .slice(before)
    .split("\n")
    .filter((l) => l.includes("overage"));
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0] as string)).toMatchObject({ level: "warn", user_id: patId, claim: "groups" });
  expect(lines[0]).not.toContain("pat@contoso.test");
  expect(lines[0]).not.toContain("graph.invalid");
});
