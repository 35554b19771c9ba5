/**
 * Playwright global setup: a fresh migrated database, two accounts provisioned through the same
 * domain verbs as the CLI, the dev OpenID provider in this process, and the built Hub (web + worker)
 * as child processes pointed at it, mailing to an in-process SMTP server that writes each mail under
 * test-results/e2e-mail/. The specs browse at MA2H_PUBLIC_URL's origin (127.0.0.1), as next-auth
 * requires. Everything is stopped and the database dropped by global-teardown.ts.
 */
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FullConfig } from "@playwright/test";
import { startDevIdp } from "../scripts/dev-idp-provider";
import { createTestDatabase } from "../test/support/database";
import { freePort, repoRoot, startHub, type HubProcess } from "../test/support/hub";
import { startMailCapture } from "../test/support/mail-capture";
import { provisionAccount, releaseDatabase, useDatabase } from "../test/support/provision";
import { db } from "../lib/db";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { changeSponsors } from "../lib/principals/sponsors";
import { STATE_ENV, type E2EState } from "./support/state";
import { e2eRuntime } from "./support/runtime";

export const OIDC_CLIENT = { id: "ma2h-e2e", secret: "ma2h-e2e-secret" };

export default async function globalSetup(_config: FullConfig): Promise<void> {
  const rt = e2eRuntime();
  process.env.MA2H_DEV_MODE = "1";
  const outDir = join(repoRoot, "test-results");
  mkdirSync(outDir, { recursive: true });

  const database = await createTestDatabase();
  rt.dropDatabase = database.drop;
  await useDatabase(database.url);
  const acme = await provisionAccount(
    "acme",
    // session-bot: sessions.spec.ts's own, which it stops and resumes; traffic-a and traffic-b:
    // traffic.spec.ts's pair, which address each other and of which it stops traffic-b;
    // revoke-bot: sessions.spec.ts's too, which it stops with its keys revoked.
    ["deploybot/dev-team", "xss-bot", "session-bot", "traffic-a", "traffic-b", "revoke-bot"],
    [
      { handle: "alice", role: "owner" },
      { handle: "bob", role: "member" },
      { handle: "vic", role: "viewer" },
      { handle: "mallory", role: "member" },
    ],
  );
  // Another account whose member must see nothing of acme's.
  const globex = await provisionAccount("globex", ["globex-bot/ops"], [{ handle: "gina", role: "member" }]);
  // Accounts of their own for the keyboard spec (a predictable list) and the docs screenshots; the
  // xss spec's items go to initech too, after the keyboard spec (one worker runs both, in file order).
  const initech = await provisionAccount("initech", ["triage-bot", "xss-bot"], [{ handle: "kim", role: "member" }]);
  const demo = await provisionAccount("demo", ["deploybot/dev-team"], [{ handle: "dana", role: "owner" }]);
  // The invitations spec's own: olive runs initrode and invites hugo, who sits in vandelay.
  const initrode = await provisionAccount("initrode", ["initrode-bot"], [{ handle: "olive", role: "owner" }]);
  const vandelay = await provisionAccount("vandelay", ["vandelay-bot"], [{ handle: "hugo", role: "member" }]);
  // identities.spec.ts: people whose sign-ins only that spec makes (a shared browser, a second identity).
  const hooli = await provisionAccount(
    "hooli",
    [],
    [
      { handle: "hank", role: "owner" },
      { handle: "ivy", role: "member" },
      { handle: "jo", role: "member" },
    ],
  );
  // groups.spec.ts's own: una (owner) keeps umbrella's groups and its agents' sponsors, abe (admin)
  // only reads them, max (member) is put in a group and made a sponsor.
  await provisionAccount(
    "umbrella",
    ["umbrella-bot"],
    [
      { handle: "una", role: "owner" },
      { handle: "abe", role: "admin" },
      { handle: "max", role: "member" },
    ],
  );
  // policy.spec.ts's own: olga (owner) applies cyberdyne's approval policy, adam (admin) only reads
  // and tests it; mia and sam are its sre group, val a viewer. Its agents submit the tested asks.
  const cyberdyne = await provisionAccount(
    "cyberdyne",
    ["deploybot/prod", "lintbot"],
    [
      { handle: "olga", role: "owner" },
      { handle: "adam", role: "admin" },
      { handle: "mia", role: "member" },
      { handle: "sam", role: "member" },
      { handle: "val", role: "viewer" },
    ],
  );
  // quorum.spec.ts's own: wayne's policy asks two approvals of a deploy bot's confirm ask from alice
  // and bob (group sre) and sam — never the bot's sponsor, who is sam (docs/policies.md "Quorum").
  const wayne = await provisionAccount(
    "wayne",
    ["deploybot/prod"],
    [
      { handle: "alice", role: "owner" },
      { handle: "bob", role: "member" },
      { handle: "sam", role: "member" },
    ],
  );
  await quorumPolicy("wayne", "deploybot/prod");
  // delegation.spec.ts's own: stark's policy asks bob of a review bot's asks; finn is group finance.
  const stark = await provisionAccount(
    "stark",
    ["reviewbot"],
    [
      { handle: "tony", role: "owner" },
      { handle: "bob", role: "member" },
      { handle: "carol", role: "member" },
      { handle: "finn", role: "member" },
    ],
  );
  await reviewPolicy("stark", "reviewbot");
  // similar-asks.spec.ts's own: norman answers oscorp's build bot's similar asks as one group.
  const oscorp = await provisionAccount("oscorp", ["buildbot"], [{ handle: "norman", role: "owner" }]);
  // insights.spec.ts's own: otto (owner) sees the account's insights, nora (member) only her own.
  const tyrell = await provisionAccount(
    "tyrell",
    ["opsbot/infra", "releasebot"],
    [
      { handle: "otto", role: "owner" },
      { handle: "nora", role: "member" },
    ],
  );
  // mobile.spec.ts's own: rita answers from her phone and from a notification's buttons; lou tries her
  // token; the gate bot's confirm asks need two approvals of rita, lou and zoe (docs/policies.md "Quorum").
  const soylent = await provisionAccount(
    "soylent",
    ["shipbot", "gatebot/prod"],
    [
      { handle: "rita", role: "owner" },
      { handle: "lou", role: "member" },
      { handle: "zoe", role: "member" },
    ],
  );
  await gatePolicy("soylent");
  // entra.spec.ts: people who sign in only through that spec's own Entra-style IdP and web process.
  await provisionAccount(
    "contoso",
    [],
    [
      { handle: "pat", role: "member" },
      { handle: "quinn", role: "member" },
    ],
  );
  await releaseDatabase();

  const port = await freePort();
  const hubUrl = `http://127.0.0.1:${port}`;
  const idp = await startDevIdp({
    clients: [
      {
        client_id: OIDC_CLIENT.id,
        client_secret: OIDC_CLIENT.secret,
        redirect_uris: [`${hubUrl}/api/auth/callback/oidc`],
      },
    ],
    accounts: [
      { login: "mallory", email: "mallory@acme.test", email_verified: false },
      { login: "alice-elsewhere", email: "alice@acme.test", email_verified: true, sub: "another-subject-for-alice" },
      { login: "jo-elsewhere", email: "jo@hooli.test", email_verified: true, sub: "another-subject-for-jo" },
    ],
    emailDomain: "acme.test",
    log: () => {},
  });
  rt.idp = idp;

  // A loopback port that admin.spec.ts's push receiver listens on: dev mode delivers plaintext to
  // loopback only for origins on this allowlist (docs/decisions/delivery-and-push.md, "Dev allowlist").
  const receiverPort = await freePort();
  // mobile.spec.ts's push service: the Hub's worker pushes its notifications there, in plaintext loopback.
  const pushReceiverPort = await freePort();
  // The notification mails: a fresh directory per run, read by email-answer.spec.ts.
  const mailDir = join(outDir, "e2e-mail");
  rmSync(mailDir, { recursive: true, force: true });
  rt.mail = await startMailCapture({ dir: mailDir });
  const env = {
    SMTP_URL: rt.mail.url,
    MA2H_MAIL_FROM: "MA2H Hub <hub@ma2h.test>",
    MA2H_DEV_CALLBACK_ALLOWLIST: `http://127.0.0.1:${receiverPort},http://127.0.0.1:${pushReceiverPort}`,
    // web-push.spec.ts subscribes a made-up endpoint on this host: a push service the operator added.
    MA2H_PUSH_SERVICES: "push.example.test",
    // admin.spec.ts: account admins may approve only these callback origins in the browser.
    MA2H_CALLBACK_ORIGIN_POLICY: "127.0.0.1/32, *.example.com",
    AUTH_OIDC_ISSUER: idp.issuer,
    AUTH_OIDC_CLIENT_ID: OIDC_CLIENT.id,
    AUTH_OIDC_CLIENT_SECRET: OIDC_CLIENT.secret,
    AUTH_OIDC_NAME: "Dev IdP",
    MA2H_PUBLIC_URL: hubUrl,
  };
  const logFiles: string[] = [];
  const capture = (hub: HubProcess, name: string) => {
    const file = join(outDir, `e2e-${name}.log`);
    const out = createWriteStream(file);
    hub.child.stdout?.on("data", (d: Buffer) => out.write(d));
    hub.child.stderr?.on("data", (d: Buffer) => out.write(d));
    logFiles.push(file);
  };
  const web = await startHub({ databaseUrl: database.url, mode: "web", port, env });
  rt.hubs.push(web);
  capture(web, "web");
  // The output before the listeners were attached (start-up lines).
  writeFileSync(join(outDir, "e2e-web-startup.log"), web.output());
  const worker = await startHub({ databaseUrl: database.url, mode: "worker", port: await freePort(), env });
  rt.hubs.push(worker);
  capture(worker, "worker");

  const state: E2EState = {
    hubUrl,
    idpIssuer: idp.issuer,
    databaseUrl: database.url,
    keys: {
      acme: acme.keys,
      globex: globex.keys,
      initech: initech.keys,
      demo: demo.keys,
      initrode: initrode.keys,
      vandelay: vandelay.keys,
      hooli: hooli.keys,
      cyberdyne: cyberdyne.keys,
      wayne: wayne.keys,
      stark: stark.keys,
      oscorp: oscorp.keys,
      tyrell: tyrell.keys,
      soylent: soylent.keys,
    },
    tokens: {
      acme: acme.tokens,
      globex: globex.tokens,
      initech: initech.tokens,
      demo: demo.tokens,
      initrode: initrode.tokens,
      vandelay: vandelay.tokens,
      hooli: hooli.tokens,
      cyberdyne: cyberdyne.tokens,
      wayne: wayne.tokens,
      stark: stark.tokens,
      oscorp: oscorp.tokens,
      tyrell: tyrell.tokens,
      soylent: soylent.tokens,
    },
    receiverPort,
    pushReceiverPort,
    mailDir,
    logFiles: [...logFiles, join(outDir, "e2e-web-startup.log")],
  };
  process.env[STATE_ENV] = JSON.stringify(state);
  writeFileSync(join(outDir, "e2e-state.json"), JSON.stringify(state, null, 2));
}

/** quorum.spec.ts's policy and sponsor, applied by the owner as `ma2h-hub policy apply` would. */
async function quorumPolicy(slug: string, agentId: string): Promise<void> {
  const account = await db().account.findUniqueOrThrow({ where: { slug }, select: { id: true } });
  const owner = { actor: "human:alice", role: "owner" } as const;
  const policy = {
    version: 1,
    groups: { sre: ["human:alice", "human:bob"] },
    rules: [
      {
        name: "prod-deploys",
        match: { agent: "deploybot/*", mode: "confirm" },
        assign: ["group:sre", "human:sam"],
        approvals: 2,
        exclude_sponsors: true,
      },
    ],
  };
  await applyPolicy(account.id, PolicyFileSchema.parse(policy), owner);
  const agent = await db().agent.findFirstOrThrow({ where: { accountId: account.id, agentId }, select: { id: true } });
  await changeSponsors(account.id, agent.id, { set: ["human:sam"] }, owner);
}

/** mobile.spec.ts's policy: the gate bot's confirm asks need two approvals of rita, lou and zoe. */
async function gatePolicy(slug: string): Promise<void> {
  const account = await db().account.findUniqueOrThrow({ where: { slug }, select: { id: true } });
  const policy = {
    version: 1,
    rules: [
      {
        name: "gated",
        match: { agent: "gatebot/*", mode: "confirm" },
        assign: ["human:rita", "human:lou", "human:zoe"],
        approvals: 2,
      },
    ],
  };
  await applyPolicy(account.id, PolicyFileSchema.parse(policy), { actor: "human:rita", role: "owner" });
}

/** delegation.spec.ts's policy: the review bot's asks go to bob; group finance is finn. */
async function reviewPolicy(slug: string, agentId: string): Promise<void> {
  const account = await db().account.findUniqueOrThrow({ where: { slug }, select: { id: true } });
  const policy = {
    version: 1,
    groups: { finance: ["human:finn"] },
    rules: [{ name: "reviews", match: { agent: agentId }, assign: ["human:bob"] }],
  };
  await applyPolicy(account.id, PolicyFileSchema.parse(policy), { actor: "human:tony", role: "owner" });
}
