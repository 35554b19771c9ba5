/**
 * Invitations and seat removal against a real web process and PostgreSQL: a seat on a person who already sits
 * elsewhere is an invitation that grants nothing until accepted (no inbox item, no `/v1` right, no
 * notification); one account's admin cannot sign another account's owner out; removing a seat
 * ends that account's access at once — the live inbox stream within a second — and nothing else;
 * the last seat gone revokes the person's PATs, unbinds their identities and revokes their pending
 * invitations, so the address starts clean.
 */
// covers: lib/principals/invitations.ts, lib/principals/members.ts, lib/web-auth/sign-in.ts, app/inbox/events/route.ts
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { resetEnvCache } from "../lib/env";
import { fanOut } from "../lib/notifications/fanout";
import { KIND_NEW } from "../lib/notifications/kinds";
import {
  acceptInvitation,
  addMemberFromBrowser,
  declineInvitation,
  listInvitations,
  pendingInvitationsFor,
  revokeInvitation,
} from "../lib/principals/invitations";
import { listMembers, removeMember } from "../lib/principals/members";
import { createTokenForUser } from "../lib/principals/tokens";
import { addUser } from "../lib/principals/users";
import { bindIdentity, personForNewIdentity } from "../lib/principals/identities";
import { issuerOf } from "../lib/web-auth/providers";
import { signInVerdict } from "../lib/web-auth/sign-in";
import { createWebSession, humanForSessionToken, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const ACME_BOT = "acme-bot";
const BRAVO_BOT = "bravo-bot";
const hub = useHubFixture({
  accounts: {
    acme: {
      agents: [ACME_BOT],
      humans: [
        { handle: "alice", role: "owner" },
        { handle: "adam", role: "admin" },
      ],
    },
    bravo: { agents: [BRAVO_BOT], humans: [{ handle: "bea", role: "owner" }] },
  },
});

let acmeId: string;
let bravoId: string;
/** acme's admin, as the web admin acts (lib/principals/admin-scope.ts). */
let asAdam: { actor: string; accountId: string; role: string };

beforeAll(async () => {
  acmeId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  bravoId = (await db().account.findUniqueOrThrow({ where: { slug: "bravo" } })).id;
  asAdam = { actor: "human:adam", accountId: acmeId, role: "admin" };
});

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: { code?: string }) => e.code ?? String(e),
  );

/** A person seated (by the CLI) in bravo only, with a browser session, a PAT and a bound identity. */
async function bravoPerson(handle: string) {
  const email = `${handle}@bravo.test`;
  const { userId, membershipId } = await addUser(email, "bravo", handle, "member");
  const session = `sess-${handle}-${Math.random().toString(36).slice(2)}`;
  await createWebSession(userId, session, new Date(Date.now() + 3_600_000));
  const pat = (await createTokenForUser(userId)).token;
  await bindIdentity(userId, "oidc", "https://idp.test", `sub-${handle}`);
  return { email, userId, membershipId, session, pat };
}

async function submit(bot: string, slug: string, title: string): Promise<string> {
  const res = await client(hub.url, hub.account(slug).keys[bot]).post("/v1/messages", envelope("ask", bot, { title }));
  expect(res.status).toBe(202);
  return res.body.id as string;
}

async function page(session: string, path: string): Promise<{ status: number; html: string }> {
  const res = await fetch(`${hub.url}${path}`, {
    headers: { cookie: `${SESSION_COOKIE_NAMES[1]}=${session}` },
    redirect: "manual",
  });
  return { status: res.status, html: await res.text() };
}

/** The §8.8 resolve with a PAT: 404 for an item of an account the person has no seat in. */
const resolveWith = (pat: string, id: string) =>
  client(hub.url, pat).post(`/v1/messages/${id}/resolve`, { resolution: "declined" });

/** `new` notification rows for `userId` after the fan-out of `messageId` with email on (no worker here). */
async function notifiedAbout(messageId: string, userId: string): Promise<number> {
  process.env.SMTP_URL = "smtp://127.0.0.1:1";
  resetEnvCache();
  try {
    await fanOut(messageId);
  } finally {
    delete process.env.SMTP_URL;
    resetEnvCache();
  }
  return db().notification.count({ where: { messageId, userId, kind: KIND_NEW } });
}

/** The live inbox stream of a session: its text so far, and when it ended. */
async function openStream(session: string) {
  const res = await fetch(`${hub.url}/inbox/events`, { headers: { cookie: `${SESSION_COOKIE_NAMES[1]}=${session}` } });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const s = { text: "", endedAt: 0, cancel: () => reader.cancel().catch(() => {}) };
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      s.text += decoder.decode(value, { stream: true });
    }
    s.endedAt = Date.now();
  })();
  await expect.poll(() => s.text).toContain("event: ready");
  return s;
}

describe("adding a person from the browser", () => {
  it("invites a person seated elsewhere; the CLI seats directly", async () => {
    const p = await bravoPerson("pia");
    const r = await addMemberFromBrowser(p.email, "acme", "pia", "member", asAdam);
    expect(r.kind).toBe("invited");
    expect((await listMembers(acmeId)).map((m) => m.handle)).not.toContain("pia");
    expect((await listInvitations(acmeId)).map((i) => [i.handle, i.email, i.expired])).toContainEqual([
      "pia",
      p.email,
      false,
    ]);
    expect(await pendingInvitationsFor(p.userId)).toMatchObject([
      { accountSlug: "acme", handle: "pia", role: "member", invitedBy: "human:adam" },
    ]);
    const audit = await db().auditEvent.findFirstOrThrow({ where: { accountId: acmeId, event: "invitation.created" } });
    expect(audit).toMatchObject({ actor: "human:adam", detail: { user_id: p.userId, handle: "pia", role: "member" } });

    const q = await bravoPerson("quinn");
    await addUser(q.email, "acme", "quinn", "member"); // the operator's CLI
    expect((await listMembers(acmeId)).map((m) => m.handle)).toContain("quinn");
  });

  it("an address new to the Hub is invited too, never seated: it signs in only to answer the invitation", async () => {
    // In bravo, whose audit stream the other tests here do not count.
    const asBea = { actor: "human:bea", accountId: bravoId, role: "owner" };
    const email = "newbie@elsewhere.test";
    expect(await personForNewIdentity(email, true, null)).toBeNull(); // nobody added it yet
    const fresh = await addMemberFromBrowser(email, "bravo", "newbie", "viewer", asBea);
    expect(fresh.kind).toBe("invited");
    const newbie = await db().user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
    expect(newbie.memberships).toEqual([]);
    expect((await listMembers(bravoId)).map((m) => m.handle)).not.toContain("newbie");
    expect(await pendingInvitationsFor(newbie.id)).toMatchObject([
      { accountSlug: "bravo", handle: "newbie", role: "viewer", invitedBy: "human:bea" },
    ]);
    // Nothing of bravo reaches the address: no notification row for it.
    const ask = await submit(BRAVO_BOT, "bravo", "bravo ask before newbie accepts");
    expect(await notifiedAbout(ask, newbie.id)).toBe(0);
    // Its first sign-in (a verified email) is let in, to the invitation; declined, no more.
    process.env.AUTH_OIDC_ISSUER = "https://idp.test";
    process.env.AUTH_OIDC_CLIENT_ID = "hub";
    process.env.AUTH_OIDC_CLIENT_SECRET = "secret";
    resetEnvCache();
    const verdict = (subject: string) =>
      signInVerdict({
        providerId: "oidc",
        subject,
        email,
        profile: { email_verified: true },
        accessToken: undefined,
        signedInAs: null,
      });
    expect(await verdict("sub-newbie")).toEqual({ allowed: true, userId: newbie.id });
    await bindIdentity(newbie.id, "oidc", issuerOf("oidc"), "sub-newbie");
    expect(await verdict("sub-newbie")).toEqual({ allowed: true, userId: newbie.id }); // bound, invitation live
    await declineInvitation(newbie.id, fresh.invitation.id);
    expect(await verdict("sub-newbie")).toEqual({ allowed: false, reason: "no_seat" });
    expect(await personForNewIdentity(email, true, null)).toBeNull();
    // Invited again and accepted: the seat, with the invited handle and role.
    const again = await addMemberFromBrowser(email, "bravo", "newbie", "viewer", asBea);
    expect(await verdict("sub-newbie")).toEqual({ allowed: true, userId: newbie.id });
    await acceptInvitation(newbie.id, again.invitation.id);
    expect((await listMembers(bravoId)).find((m) => m.handle === "newbie")).toMatchObject({ role: "viewer" });
    for (const k of ["AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID", "AUTH_OIDC_CLIENT_SECRET"]) delete process.env[k];
    resetEnvCache();
  });

  it("two first sign-ins of one identity at once bind it once, and neither fails", async () => {
    const p = await bravoPerson("twin");
    const subject = `sub-twin-${Date.now()}`;
    await Promise.all(Array.from({ length: 4 }, () => bindIdentity(p.userId, "oidc", "https://idp.test", subject)));
    const rows = await db().authIdentity.findMany({ where: { issuer: "https://idp.test", subject } });
    expect(rows.map((r) => r.userId)).toEqual([p.userId]);
  });

  it("refuses an existing member, a second invitation, a taken handle and an owner invited by an admin", async () => {
    const p = await bravoPerson("rae");
    await addMemberFromBrowser(p.email, "acme", "rae", "member", asAdam);
    expect(await codeOf(addMemberFromBrowser(p.email, "acme", "rae2", "member", asAdam))).toBe("invalid_field");
    const other = await bravoPerson("sol");
    expect(await codeOf(addMemberFromBrowser(other.email, "acme", "rae", "member", asAdam))).toBe("invalid_field");
    expect(await codeOf(addMemberFromBrowser(other.email, "acme", "alice", "member", asAdam))).toBe("invalid_field");
    expect(await codeOf(addMemberFromBrowser(other.email, "acme", "sol", "owner", asAdam))).toBe("not_authorized");
    expect(await codeOf(addMemberFromBrowser("alice@acme.test", "acme", "al", "member", asAdam))).toBe("invalid_field");
    expect((await listInvitations(acmeId)).filter((i) => i.userId === other.userId)).toEqual([]);
  });
});

describe("an invitation grants nothing until accepted", () => {
  it("no inbox item, no /v1 right and no notification of the account; after accepting, all of them", async () => {
    const p = await bravoPerson("tess");
    const { invitation } = (await addMemberFromBrowser(p.email, "acme", "tess", "member", asAdam)) as {
      invitation: { id: string };
    };
    const before = await submit(ACME_BOT, "acme", "acme launch plan before");
    expect((await page(p.session, "/inbox")).html).not.toContain("acme launch plan before");
    expect((await page(p.session, `/inbox/${before}`)).status).toBe(404);
    const inbox = await page(p.session, "/inbox");
    expect(inbox.html).toContain('data-testid="invitation"');
    expect(inbox.html).toContain('data-account="acme"');
    expect((await resolveWith(p.pat, before)).status).toBe(404);
    expect(await notifiedAbout(before, p.userId)).toBe(0);
    const alice = (await db().user.findUniqueOrThrow({ where: { email: "alice@acme.test" } })).id;
    expect(await db().notification.count({ where: { messageId: before, userId: alice, kind: KIND_NEW } })).toBe(1); // the control

    // Someone else cannot accept it for her.
    const bea = (await db().user.findUniqueOrThrow({ where: { email: "bea@bravo.test" } })).id;
    expect(await codeOf(acceptInvitation(bea, invitation.id))).toBe("not_found");

    expect(await acceptInvitation(p.userId, invitation.id)).toMatchObject({
      accountSlug: "acme",
      handle: "tess",
      role: "member",
    });
    expect((await listMembers(acmeId)).map((m) => m.handle)).toContain("tess");
    expect(await listInvitations(acmeId)).not.toContainEqual(expect.objectContaining({ id: invitation.id }));
    const after = await submit(ACME_BOT, "acme", "acme launch plan after");
    expect((await page(p.session, "/inbox")).html).toContain("acme launch plan after");
    expect((await page(p.session, `/inbox/${before}`)).status).toBe(200);
    expect(await notifiedAbout(after, p.userId)).toBe(1);
    expect((await resolveWith(p.pat, before)).status).toBe(200);
    expect(await codeOf(acceptInvitation(p.userId, invitation.id))).toBe("not_found"); // answered
    const accepted = await db().auditEvent.findFirstOrThrow({
      where: { accountId: acmeId, event: "invitation.accepted" },
    });
    expect(accepted).toMatchObject({ actor: "human:tess", detail: { invitation_id: invitation.id, handle: "tess" } });
  });

  it("declined or revoked, it can no longer be accepted; another account's admin cannot revoke it", async () => {
    const d = await bravoPerson("dee");
    const inv = (await addMemberFromBrowser(d.email, "acme", "dee", "viewer", asAdam)) as {
      invitation: { id: string };
    };
    await declineInvitation(d.userId, inv.invitation.id);
    expect(await codeOf(acceptInvitation(d.userId, inv.invitation.id))).toBe("not_found");
    expect(await pendingInvitationsFor(d.userId)).toEqual([]);

    const r = await bravoPerson("rex");
    const inv2 = (await addMemberFromBrowser(r.email, "acme", "rex", "member", asAdam)) as {
      invitation: { id: string };
    };
    const asBea = { actor: "human:bea", accountId: bravoId, role: "owner" };
    expect(await codeOf(revokeInvitation(bravoId, inv2.invitation.id, asBea))).toBe("not_found");
    await revokeInvitation(acmeId, inv2.invitation.id, asAdam);
    expect(await codeOf(acceptInvitation(r.userId, inv2.invitation.id))).toBe("not_found");
    expect(await codeOf(revokeInvitation(acmeId, inv2.invitation.id, asAdam))).toBe("not_found");

    const events = await db().auditEvent.findMany({
      where: { accountId: acmeId, event: { in: ["invitation.declined", "invitation.revoked"] } },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => [e.event, e.actor])).toEqual([
      ["invitation.declined", "human:dee"],
      ["invitation.revoked", "human:adam"],
    ]);
    for (const who of [d.userId, r.userId])
      expect(await db().membership.count({ where: { userId: who, accountId: acmeId } })).toBe(0);
    // Declined, the person may be invited again.
    expect((await addMemberFromBrowser(d.email, "acme", "dee", "viewer", asAdam)).kind).toBe("invited");
  });

  it("accepting fails cleanly when the handle was taken meanwhile", async () => {
    const p = await bravoPerson("uma");
    const inv = (await addMemberFromBrowser(p.email, "acme", "uma", "member", asAdam)) as {
      invitation: { id: string };
    };
    await addUser("someone-else@acme.test", "acme", "uma", "member"); // the CLI, meanwhile
    const err = await acceptInvitation(p.userId, inv.invitation.id).catch((e: Error & { code: string }) => e);
    expect(err).toMatchObject({ code: "invalid_field" });
    expect((err as Error).message).toContain("handle uma was taken");
    expect(await db().membership.count({ where: { userId: p.userId, accountId: acmeId } })).toBe(0);
    expect(await pendingInvitationsFor(p.userId)).toHaveLength(1);
  });
});

describe("removing a seat", () => {
  it("an admin of acme cannot sign bravo's owner out: she loses acme only, same session", async () => {
    const bea = (await db().user.findUniqueOrThrow({ where: { email: "bea@bravo.test" } })).id;
    const session = `sess-bea-${Math.random().toString(36).slice(2)}`;
    await createWebSession(bea, session, new Date(Date.now() + 3_600_000));
    const pat = hub.account("bravo").tokens.bea as string;
    const { membershipId } = await addUser("bea@bravo.test", "acme", "bea", "member");
    const acmeAsk = await submit(ACME_BOT, "acme", "acme ask for bea");
    const bravoAsk = await submit(BRAVO_BOT, "bravo", "bravo ask for bea");
    expect((await page(session, `/inbox/${acmeAsk}`)).status).toBe(200);

    await removeMember(acmeId, membershipId, asAdam);
    expect(await humanForSessionToken(session)).not.toBeNull();
    const inbox = await page(session, "/inbox");
    expect(inbox.status).toBe(200);
    expect(inbox.html).toContain("bravo ask for bea");
    expect(inbox.html).not.toContain("acme ask for bea");
    expect((await page(session, `/inbox/${acmeAsk}`)).status).toBe(404);
    expect((await page(session, "/admin/bravo/members")).status).toBe(200);
    expect((await resolveWith(pat, acmeAsk)).status).toBe(404);
    expect((await resolveWith(pat, bravoAsk)).status).toBe(200);
    // Acme's trail names its own seat only — not what else the person has or lost.
    const row = await db().auditEvent.findFirstOrThrow({
      where: { accountId: acmeId, event: "member.removed", actor: "human:adam" },
      orderBy: { id: "desc" },
    });
    expect(row.detail).toEqual({ membership_id: membershipId, user_id: bea, handle: "bea", role: "member" });
  });

  it("closes the removed member's live inbox stream within a second; her other account keeps streaming", async () => {
    const p = await bravoPerson("vera");
    const { membershipId } = await addUser(p.email, "acme", "vera", "member");
    const stream = await openStream(p.session);
    const t0 = Date.now();
    await removeMember(acmeId, membershipId, asAdam);
    await expect.poll(() => stream.endedAt, { timeout: 3000, interval: 20 }).toBeGreaterThan(0);
    expect(stream.endedAt - t0).toBeLessThan(1000);

    // The browser reconnects on the same session and hears bravo, not acme.
    const again = await openStream(p.session);
    const acmeAsk = await submit(ACME_BOT, "acme", "acme after vera left");
    const bravoAsk = await submit(BRAVO_BOT, "bravo", "bravo for vera");
    await expect.poll(() => again.text).toContain(bravoAsk);
    expect(again.text).not.toContain(acmeAsk);
    expect(again.endedAt).toBe(0);
    await again.cancel();
  });

  it("the last seat gone: sessions end, PATs are revoked, identities unbound, invitations revoked", async () => {
    const p = await bravoPerson("wes");
    const acmeInv = (await addMemberFromBrowser(p.email, "acme", "wes", "member", asAdam)) as {
      invitation: { id: string };
    };
    const bravoAsk = await submit(BRAVO_BOT, "bravo", "bravo before wes left");
    const asBea = { actor: "human:bea", accountId: bravoId, role: "owner" };
    const r = await removeMember(bravoId, p.membershipId, asBea);
    expect(r).toMatchObject({
      lastSeat: true,
      sessionsEnded: 1,
      tokensRevoked: 1,
      identitiesUnbound: 1,
      invitationsRevoked: 1,
    });
    expect(await humanForSessionToken(p.session)).toBeNull();
    expect((await resolveWith(p.pat, bravoAsk)).status).toBe(401);
    expect(await db().personalAccessToken.count({ where: { userId: p.userId, revokedAt: null } })).toBe(0);
    expect(await db().authIdentity.count({ where: { userId: p.userId } })).toBe(0);
    expect(await codeOf(acceptInvitation(p.userId, acmeInv.invitation.id))).toBe("not_found");
    expect(
      await db().auditEvent.findFirst({
        where: { accountId: acmeId, event: "invitation.revoked", actor: "system:hub" },
      }),
    ).toMatchObject({ detail: { invitation_id: acmeInv.invitation.id } });

    // Re-added, the address starts clean: it has no seat, so it is invited (never seated silently)
    // and its next first sign-in binds afresh (the old identity is gone) to accept.
    expect(await personForNewIdentity(p.email, true, null)).toBeNull();
    const back = await addMemberFromBrowser(p.email, "acme", "wes", "member", asAdam);
    expect(back.kind).toBe("invited");
    expect(await db().membership.count({ where: { userId: p.userId } })).toBe(0);
    expect(await personForNewIdentity(p.email, true, null)).toBe(p.userId);
    // Each unbound identity and revoked token is in the person's own stream, not an account's.
    const own = await db().auditEvent.findMany({ where: { userId: p.userId, actor: "system:last_seat_removed" } });
    expect(own.map((e) => e.event).sort()).toEqual(["identity.unlinked", "token.revoked"]);
  });

  it("a seat that is not the last ends nothing else: PATs, identities and sessions stay", async () => {
    const p = await bravoPerson("xia");
    const { membershipId } = await addUser(p.email, "acme", "xia", "member");
    const r = await removeMember(acmeId, membershipId, asAdam);
    expect(r).toMatchObject({ lastSeat: false, sessionsEnded: 0, tokensRevoked: 0, identitiesUnbound: 0 });
    expect(await humanForSessionToken(p.session)).not.toBeNull();
    expect(await db().personalAccessToken.count({ where: { userId: p.userId, revokedAt: null } })).toBe(1);
    expect(await db().authIdentity.count({ where: { userId: p.userId } })).toBe(1);
  });
});
