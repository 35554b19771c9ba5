/**
 * A person's sign-in identities (issuer + subject): which person an identity belongs to, who a new
 * one may be bound to, binding, the record of each sign-in, and the person's own list and removal
 * (/settings/identities). Every link, unlink and sign-in is written to the person's own audit stream
 * (lib/audit/write.ts `writePersonAudit`), never an account's.
 *
 * The binding rule: an identity is bound only to the invited person whose email the provider
 * asserts verified — never to whoever happens to be signed in on the browser. A person who already
 * has an identity gets another one only while signed in as themselves (proof they hold the first);
 * otherwise a new subject with their email is refused, so an email alone never opens a bound person.
 */
import { AUDIT_EVENT } from "../audit/events";
import { personActor, writePersonAudit } from "../audit/write";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import { isUniqueViolation } from "../db-errors";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { hashCredential } from "../secrets";
import { hasLiveInvitation } from "./invitations";
import { lockPerson } from "./seat-locks";

/** The person an identity is bound to, or null. */
export async function userForIdentity(issuer: string, subject: string): Promise<string | null> {
  const row = await db().authIdentity.findUnique({ where: { issuer_subject: { issuer, subject } } });
  return row?.userId ?? null;
}

/**
 * Who an identity not seen before may be bound to: the invited person (a user with at least one
 * seat, or an invitation they can still accept) whose email the provider asserts verified — and, when that person already has an identity,
 * only if the browser is signed in as that same person (`signedInAs`), linking a second sign-in.
 * The browser's session never chooses the person: it can only permit a link to itself.
 */
export async function personForNewIdentity(
  email: string | null | undefined,
  verified: boolean,
  signedInAs: string | null,
): Promise<string | null> {
  if (!email || !verified) return null;
  const user = await db().user.findUnique({
    where: { email: email.trim().toLowerCase() },
    include: { _count: { select: { memberships: true, identities: true } } },
  });
  if (!user) return null;
  if (user._count.memberships === 0 && !(await hasLiveInvitation(user.id))) return null;
  if (user._count.identities > 0 && signedInAs !== user.id) return null;
  return user.id;
}

/**
 * Binds issuer + subject to the person (idempotent: an identity already bound stays where it is).
 * Two first sign-ins of one identity at once (two browsers, two tabs) both find it unbound; the
 * second insert then violates the (issuer, subject) key, and that loser's sign-in goes on with the
 * winner's binding — the same person, since both were admitted by the same verified email.
 */
export async function bindIdentity(userId: string, provider: string, issuer: string, subject: string): Promise<void> {
  try {
    await bindOnce(userId, provider, issuer, subject);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

async function bindOnce(userId: string, provider: string, issuer: string, subject: string): Promise<void> {
  await db().$transaction(async (tx) => {
    const existing = await tx.authIdentity.findUnique({ where: { issuer_subject: { issuer, subject } } });
    if (existing) return;
    const id = mintId("identity");
    await tx.authIdentity.create({ data: { id, userId, provider, issuer, subject, createdAt: clock.now() } });
    await writePersonAudit(tx, {
      userId,
      actor: personActor(userId),
      event: AUDIT_EVENT.identityLinked,
      detail: { identity_id: id, provider, issuer, subject },
    });
  });
}

/** Stamps the identity's last sign-in and audits it in its person's stream. */
export async function recordSignIn(issuer: string, subject: string): Promise<void> {
  const now = clock.now();
  await db().$transaction(async (tx) => {
    const row = await tx.authIdentity.findUnique({ where: { issuer_subject: { issuer, subject } } });
    if (!row) return;
    await tx.authIdentity.update({ where: { id: row.id }, data: { lastSignInAt: now } });
    await writePersonAudit(tx, {
      userId: row.userId,
      actor: personActor(row.userId),
      event: AUDIT_EVENT.identitySignedIn,
      detail: { identity_id: row.id, provider: row.provider, issuer },
      at: now,
    });
  });
}

export interface IdentityInfo {
  id: string;
  provider: string;
  issuer: string;
  subject: string;
  linkedAt: Date;
  lastSignInAt: Date | null;
}

/** The person's identities, oldest first. */
export async function listIdentities(userId: string): Promise<IdentityInfo[]> {
  const rows = await db().authIdentity.findMany({
    where: { userId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((r) => ({
    id: r.id,
    provider: r.provider,
    issuer: r.issuer,
    subject: r.subject,
    linkedAt: r.createdAt,
    lastSignInAt: r.lastSignInAt,
  }));
}

/**
 * Removes one of the person's identities while another remains: someone else's or an unknown id is
 * `404`, the last one `422 invalid_field` (a person with none could never sign in again). Sessions
 * do not record which identity opened them, so removing one ends the person's other browser
 * sessions; the one doing the removal (`keepSessionToken`) stays signed in.
 */
export async function unlinkIdentity(
  userId: string,
  identityId: string,
  keepSessionToken?: string,
): Promise<{ id: string; unlinked: true }> {
  await db().$transaction(async (tx) => {
    // One removal at a time per person, so two concurrent removals cannot take the last two.
    await lockPerson(tx, userId);
    const row = await tx.authIdentity.findFirst({ where: { id: identityId, userId } });
    if (!row) throw new HubError("not_found", `identity ${identityId} not found`);
    if ((await tx.authIdentity.count({ where: { userId } })) <= 1)
      throw new HubError("invalid_field", "this is your only sign-in identity; link another before removing it");
    await tx.authIdentity.delete({ where: { id: row.id } });
    await tx.webSession.deleteMany({
      where: { userId, ...(keepSessionToken ? { NOT: { tokenHash: hashCredential(keepSessionToken) } } : {}) },
    });
    await writePersonAudit(tx, {
      userId,
      actor: personActor(userId),
      event: AUDIT_EVENT.identityUnlinked,
      detail: { identity_id: row.id, provider: row.provider, issuer: row.issuer, subject: row.subject },
    });
  });
  return { id: identityId, unlinked: true };
}

/**
 * Unbinds every identity of a person whose last seat is gone (members.ts), in the removal's own
 * transaction, each recorded in the person's own stream: a recycled or re-invited address then
 * binds afresh at its next first sign-in instead of inheriting the old issuer + subject.
 */
export async function unbindIdentitiesOf(tx: Tx, userId: string): Promise<number> {
  const rows = await tx.authIdentity.findMany({ where: { userId } });
  if (rows.length === 0) return 0;
  await tx.authIdentity.deleteMany({ where: { userId } });
  await writePersonAudit(
    tx,
    rows.map((r) => ({
      userId,
      actor: "system:last_seat_removed",
      event: AUDIT_EVENT.identityUnlinked,
      detail: { identity_id: r.id, provider: r.provider, issuer: r.issuer, subject: r.subject },
    })),
  );
  return rows.length;
}
