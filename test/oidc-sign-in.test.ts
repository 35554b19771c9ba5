/**
 * The sign-in rule against real PostgreSQL, through next-auth's own signIn callback
 * (lib/next/auth-options.ts) as the auth route builds it: an OIDC issuer configured as Microsoft
 * Entra ID (MA2H_OIDC_KIND=entra) lets an invited person in on `xms_edov: true` in place of
 * `email_verified`, never on a sign-in name standing in for a missing `email`; generic OIDC and Google
 * keep `email_verified`. Each allowed OIDC sign-in applies the groups claim (MA2H_OIDC_GROUPS_CLAIM):
 * mapped values make `idp` memberships and their absence removes them, manual ones stay; an overage,
 * a missing or a malformed claim changes nothing and is logged with the person's id only; a refused
 * sign-in changes nothing.
 */
// covers: lib/web-auth/sign-in.ts, lib/next/auth-options.ts, lib/web-auth/groups-claim.ts, lib/web-auth/verified-email.ts
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { resetEnvCache } from "../lib/env";
import { IDP_SYNC_ACTOR, addGroupMapping } from "../lib/groups/claims";
import { addGroupMember, createGroup } from "../lib/groups/groups";
import { authOptions } from "../lib/next/auth-options";
import { bindIdentity } from "../lib/principals/identities";
import { issuerOf } from "../lib/web-auth/providers";
import { signInVerdict } from "../lib/web-auth/sign-in";
import { useHubFixture } from "./support/hub-fixture";

useHubFixture({
  accounts: {
    contoso: {
      agents: [],
      humans: [
        { handle: "pat", role: "member" },
        { handle: "quinn", role: "member" },
        { handle: "rae", role: "member" },
      ],
    },
  },
  server: "none",
});

const ISSUER = "https://login.microsoftonline.test/00000000-0000-0000-0000-00000000c0de/v2.0";
/** Entra's groups claim carries object ids. */
const PLATFORM_ID = "6f1c2a9e-0b3d-4c5e-8f70-1a2b3c4d5e6f";
const ONCALL_ID = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d";
const SETTINGS = {
  AUTH_OIDC_ISSUER: ISSUER,
  AUTH_OIDC_CLIENT_ID: "hub",
  AUTH_OIDC_CLIENT_SECRET: "hub-secret",
  AUTH_GOOGLE_ID: "google-hub",
  AUTH_GOOGLE_SECRET: "google-secret",
  MA2H_OIDC_KIND: "entra",
  MA2H_OIDC_GROUPS_CLAIM: "groups",
};

function configure(extra: Record<string, string | undefined> = {}): void {
  for (const [k, v] of Object.entries({ ...SETTINGS, ...extra })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
}

let contosoId: string;
const userId = async (email: string) => (await db().user.findUniqueOrThrow({ where: { email } })).id;

beforeAll(async () => {
  configure();
  contosoId = (await db().account.findUniqueOrThrow({ where: { slug: "contoso" } })).id;
  await createGroup(contosoId, "platform", "the platform team");
  await createGroup(contosoId, "oncall", undefined);
  await addGroupMapping(contosoId, "group:platform", PLATFORM_ID);
  await addGroupMapping(contosoId, "group:oncall", ONCALL_ID);
  // pat is on call because an owner said so: no sign-in takes that away.
  await addGroupMember(contosoId, "group:oncall", "human:pat");
});

afterAll(() => {
  configure(Object.fromEntries(Object.keys(SETTINGS).map((k) => [k, undefined])));
});

/** What next-auth hands the signIn callback on a provider's callback: the ID token's claims as `profile`. */
async function signInThrough(
  provider: "oidc" | "google",
  subject: string,
  email: string | undefined,
  claims: Record<string, unknown>,
): Promise<string | boolean> {
  const options = authOptions({ callback: true });
  const signIn = options.callbacks?.signIn;
  if (!signIn) throw new Error("no signIn callback");
  return signIn({
    user: { id: subject, email: email ?? null, name: null },
    account: { provider, providerAccountId: subject, type: "oauth" },
    profile: { sub: subject, ...(email ? { email } : {}), ...claims },
  } as never);
}

const verdict = (providerId: string, subject: string, email: string | undefined, profile: Record<string, unknown>) =>
  signInVerdict({ providerId, subject, email, profile, accessToken: undefined, signedInAs: null });

/** contoso's group rows of a person: group name → source. */
async function groupsOf(handle: string): Promise<Record<string, string>> {
  const rows = await db().groupMember.findMany({
    where: { membership: { accountId: contosoId, handle } },
    select: { source: true, group: { select: { name: true } } },
  });
  return Object.fromEntries(rows.map((r) => [r.group.name, r.source]));
}

/** What the process logs at warn and above while `run` runs (LOG_LEVEL is silent in tests). */
async function logged(run: () => Promise<unknown>, level = "info"): Promise<string> {
  const write = process.stderr.write.bind(process.stderr);
  const out = process.stdout.write.bind(process.stdout);
  let text = "";
  const capture = (chunk: unknown) => {
    text += String(chunk);
    return true;
  };
  process.env.LOG_LEVEL = level;
  process.stderr.write = capture as typeof process.stderr.write;
  process.stdout.write = capture as typeof process.stdout.write;
  try {
    await run();
  } finally {
    process.stderr.write = write;
    process.stdout.write = out;
    process.env.LOG_LEVEL = "silent";
  }
  return text;
}

describe("an OIDC issuer configured as Microsoft Entra ID", () => {
  it("lets the invited person in on xms_edov: true, with no email_verified", async () => {
    expect(await verdict("oidc", "entra-pat", "pat@contoso.test", { xms_edov: true })).toEqual({
      allowed: true,
      userId: await userId("pat@contoso.test"),
    });
  });

  it("refuses without xms_edov: true — email_verified is not Entra's signal, and no other value counts", async () => {
    for (const claims of [{}, { email_verified: true }, { xms_edov: "true" }, { xms_edov: 1 }, { xms_edov: false }])
      expect(await verdict("oidc", "entra-quinn", "quinn@contoso.test", claims), JSON.stringify(claims)).toEqual({
        allowed: false,
        reason: "email_not_verified",
      });
  });

  it("never binds by preferred_username or upn when the email claim is missing", async () => {
    const names = { xms_edov: true, preferred_username: "quinn@contoso.test", upn: "quinn@contoso.test" };
    expect(await verdict("oidc", "entra-quinn", undefined, names)).toEqual({ allowed: false, reason: "no_email" });
    expect(await signInThrough("oidc", "entra-quinn", undefined, names)).toBe("/signin?error=AccessDenied");
    expect(await db().authIdentity.count({ where: { issuer: ISSUER } })).toBe(0);
  });

  it("leaves Google on email_verified", async () => {
    expect(await verdict("google", "g-quinn", "quinn@contoso.test", { xms_edov: true })).toEqual({
      allowed: false,
      reason: "email_not_verified",
    });
    expect(await verdict("google", "g-quinn", "quinn@contoso.test", { email_verified: true })).toMatchObject({
      allowed: true,
    });
  });

  it("generic OIDC (the default) takes email_verified and not xms_edov", async () => {
    configure({ MA2H_OIDC_KIND: undefined });
    try {
      expect(await verdict("oidc", "gen-quinn", "quinn@contoso.test", { xms_edov: true })).toEqual({
        allowed: false,
        reason: "email_not_verified",
      });
      expect(await verdict("oidc", "gen-quinn", "quinn@contoso.test", { email_verified: true })).toMatchObject({
        allowed: true,
      });
    } finally {
      configure();
    }
  });
});

describe("groups from the ID token at each sign-in", () => {
  it("a first sign-in puts the person in the mapped groups, from the identity provider; manual rows stay manual", async () => {
    const claims = { xms_edov: true, groups: [PLATFORM_ID, ONCALL_ID, "an-unmapped-group-id"] };
    expect(await signInThrough("oidc", "entra-pat", "pat@contoso.test", claims)).toBe(true);
    expect(await groupsOf("pat")).toEqual({ platform: "idp", oncall: "manual" });
    const audit = await db().auditEvent.findMany({
      where: { accountId: contosoId, actor: IDP_SYNC_ACTOR },
      select: { event: true, detail: true },
    });
    expect(audit).toEqual([
      { event: "group.member_added", detail: { group: "platform", handle: "pat", source: "idp" } },
    ]);
  });

  it("a later sign-in without the value takes the idp row away and leaves the manual one", async () => {
    await bindIdentity(await userId("pat@contoso.test"), "oidc", issuerOf("oidc"), "entra-pat");
    // Bound now: the rule matches issuer + subject, and the claim still applies.
    expect(await signInThrough("oidc", "entra-pat", "pat@contoso.test", { xms_edov: true, groups: [] })).toBe(true);
    expect(await groupsOf("pat")).toEqual({ oncall: "manual" });
  });

  it("an overage, a missing or a malformed claim changes nothing; the overage is a warning naming only the person", async () => {
    await signInThrough("oidc", "entra-pat", "pat@contoso.test", { xms_edov: true, groups: [PLATFORM_ID] });
    expect(await groupsOf("pat")).toEqual({ platform: "idp", oncall: "manual" });
    const overage = {
      xms_edov: true,
      _claim_names: { groups: "src1" },
      _claim_sources: { src1: { endpoint: "https://graph.windows.net/t/users/u/getMemberObjects" } },
    };
    const warned = await logged(() => signInThrough("oidc", "entra-pat", "pat@contoso.test", overage), "warn");
    const line = JSON.parse(warned.trim().split("\n").at(-1) as string);
    expect(line).toMatchObject({ level: "warn", user_id: await userId("pat@contoso.test"), claim: "groups" });
    expect(line.msg).toContain("overage");
    expect(warned).not.toContain("pat@contoso.test");
    expect(warned).not.toContain("graph.windows.net");
    for (const claims of [{ xms_edov: true }, { xms_edov: true, groups: PLATFORM_ID }, { xms_edov: true, groups: [7] }])
      expect(await signInThrough("oidc", "entra-pat", "pat@contoso.test", claims)).toBe(true);
    expect(await groupsOf("pat")).toEqual({ platform: "idp", oncall: "manual" });
  });

  it("a refused sign-in changes no group", async () => {
    const claims = { groups: [PLATFORM_ID] }; // no xms_edov
    expect(await signInThrough("oidc", "entra-rae", "rae@contoso.test", claims)).toBe("/signin?error=AccessDenied");
    expect(await groupsOf("rae")).toEqual({});
  });

  it("Google's sign-in never applies a groups claim", async () => {
    const claims = { email_verified: true, groups: [PLATFORM_ID] };
    expect(await signInThrough("google", "g-rae", "rae@contoso.test", claims)).toBe(true);
    expect(await groupsOf("rae")).toEqual({});
  });

  it("without MA2H_OIDC_GROUPS_CLAIM a sign-in changes no group", async () => {
    configure({ MA2H_OIDC_GROUPS_CLAIM: undefined });
    try {
      const claims = { xms_edov: true, groups: [] };
      expect(await signInThrough("oidc", "entra-pat", "pat@contoso.test", claims)).toBe(true);
      expect(await groupsOf("pat")).toEqual({ platform: "idp", oncall: "manual" });
    } finally {
      configure();
    }
  });
});
