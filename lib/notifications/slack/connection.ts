/**
 * An account's Slack app (docs/notifications.md "Slack: connecting"): owners paste the bot
 * token and signing secret — verified by calling `auth.test` with the token before anything
 * is stored, both sealed (lib/secrets.ts) and never shown again — and owners and admins choose where items go: one
 * channel (`C…`/`G…`) and/or direct messages to people who bound their Slack user. Whoever holds
 * the signing secret can sign a click as any Slack user, so any change of the secret, the token or
 * the workspace — and a disconnect — drops every Slack binding of the account: people re-bind from
 * the signed-in bind page, which only they can confirm. Each verb
 * re-checks the role (the page's gate is not trusted alone), changes nothing on bad input, and
 * writes an account audit row carrying no secret.
 */
import { timingSafeEqual } from "node:crypto";
import { AUDIT_EVENT } from "../../audit/events";
import { writeAudit } from "../../audit/write";
import { clock } from "../../clock";
import { db, type Tx } from "../../db";
import type { SlackConnection } from "../../generated/prisma/client";
import { HubError } from "@ma2h/protocol/errors";
import { ADMIN_ROLES } from "../../principals/seats";
import type { Role } from "../../principals/types";
import { openSecret, sealSecret } from "../../secrets";
import { sealContext } from "../../sealed/catalogue";
import { failureOf, slackClient } from "./api";
import { auditSlackBinding } from "./bindings";

/** Who acts: the seat's account, role and attested actor (`human:<handle>`). */
export interface SlackAdmin {
  accountId: string;
  role: Role;
  actor: string;
}

/** What anyone may see of a connection: never a secret. */
export interface SlackConnectionView {
  teamId: string;
  teamName: string;
  channelId: string | null;
  directMessages: boolean;
  connectedBy: string;
  connectedAt: Date;
}

/** A connection with its secrets opened, for the sender and the interaction endpoint only. */
export interface OpenConnection extends SlackConnectionView {
  accountId: string;
  botToken: string;
  signingSecret: string;
}

const BOT_TOKEN = /^xoxb-[A-Za-z0-9-]{1,250}$/;
const SIGNING_SECRET = /^[A-Za-z0-9]{16,128}$/;
/** A public (`C…`) or private (`G…`) channel id, as Slack shows it in the channel's details. */
const CHANNEL_ID = /^[CG][A-Z0-9]{2,30}$/;

function requireAdmin(who: SlackAdmin): void {
  if (!ADMIN_ROLES.includes(who.role))
    throw new HubError("not_authorized", "only an owner or admin may change where Slack items go");
}

/** The connection itself (token, secret, workspace) is an owner's: it decides who a click answers as. */
function requireOwner(who: SlackAdmin): void {
  if (who.role !== "owner")
    throw new HubError("not_authorized", "only an owner may connect, reconnect or disconnect the account's Slack app");
}

/** Equal strings, compared in constant time (one of them is a secret). */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function slackConnectionOf(accountId: string): Promise<SlackConnectionView | null> {
  const row = await db().slackConnection.findUnique({ where: { accountId } });
  return row ? viewOf(row) : null;
}

/** What may be shown of a connection: everything but the sealed secrets. */
function viewOf(row: SlackConnection): SlackConnectionView {
  return {
    teamId: row.teamId,
    teamName: row.teamName,
    channelId: row.channelId,
    directMessages: row.directMessages,
    connectedBy: row.connectedBy,
    connectedAt: row.createdAt,
  };
}

export async function openConnection(accountId: string): Promise<OpenConnection | null> {
  const row = await db().slackConnection.findUnique({ where: { accountId } });
  if (!row) return null;
  return {
    accountId,
    ...viewOf(row),
    botToken: openSecret(row.botTokenSealed, sealContext("slackBotToken", { account_id: accountId })),
    signingSecret: openSecret(row.signingSecretSealed, sealContext("slackSigningSecret", { account_id: accountId })),
  };
}

export function parseChannelId(input: unknown): string | null {
  if (input === null || input === undefined || input === "") return null;
  if (typeof input !== "string" || !CHANNEL_ID.test(input.trim()))
    throw new HubError("validation_error", "channel: a Slack channel id (C… or G…), or empty for none");
  return input.trim();
}

/**
 * Connects (or reconnects) the account's Slack app; owners only. The token is checked with
 * `auth.test` first: a token Slack does not accept stores nothing. A reconnect that changes the
 * workspace, the bot token or the signing secret — or a connect with no connection before — removes
 * every Slack binding of the account and every unused bind link: a binding vouches for clicks signed
 * with the secret it was made under, and a new secret's holder could sign any Slack user's click
 * (docs/decisions/auth-and-security.md "Slack"). Reconnecting with the very same three keeps them.
 */
export async function connectSlack(
  who: SlackAdmin,
  input: { botToken: unknown; signingSecret: unknown; channelId?: unknown; directMessages?: unknown },
): Promise<SlackConnectionView> {
  requireOwner(who);
  const botToken = typeof input.botToken === "string" ? input.botToken.trim() : "";
  const signingSecret = typeof input.signingSecret === "string" ? input.signingSecret.trim() : "";
  if (!BOT_TOKEN.test(botToken)) throw new HubError("validation_error", "bot token: a Slack bot token (xoxb-…)");
  if (!SIGNING_SECRET.test(signingSecret))
    throw new HubError("validation_error", "signing secret: the app's signing secret (letters and digits)");
  const channelId = parseChannelId(input.channelId);
  const directMessages = input.directMessages === undefined ? true : input.directMessages === true;

  let team: { teamId: string; teamName: string; botUserId: string | null };
  try {
    const res = await (await slackClient(botToken)).auth.test();
    if (typeof res.team_id !== "string") throw new Error("auth.test: no team_id");
    team = {
      teamId: res.team_id,
      teamName: typeof res.team === "string" ? res.team : res.team_id,
      botUserId: typeof res.user_id === "string" ? res.user_id : null,
    };
  } catch (err) {
    const f = failureOf(err);
    throw new HubError("validation_error", `Slack did not accept the bot token (${f.errorClass})`);
  }

  const now = clock.now();
  await db().$transaction(async (tx) => {
    const before = await tx.slackConnection.findUnique({ where: { accountId: who.accountId } });
    const row = { account_id: who.accountId };
    const sealed = {
      botTokenSealed: sealSecret(botToken, sealContext("slackBotToken", row)),
      signingSecretSealed: sealSecret(signingSecret, sealContext("slackSigningSecret", row)),
    };
    const data = { ...team, ...sealed, channelId, directMessages, connectedBy: who.actor, updatedAt: now };
    await tx.slackConnection.upsert({
      where: { accountId: who.accountId },
      create: { accountId: who.accountId, ...data, createdAt: now },
      update: { ...data, createdAt: now },
    });
    const changed = before === null ? ["connection"] : changedParts(before, team.teamId, botToken, signingSecret);
    const unbound =
      changed.length > 0
        ? await unbindAll(tx, who.accountId, who.actor, { reason: "connection_changed", changed }, now)
        : 0;
    await writeAudit(tx, {
      accountId: who.accountId,
      actor: who.actor,
      event: AUDIT_EVENT.slackConnected,
      detail: {
        team_id: team.teamId,
        channel_id: channelId,
        direct_messages: directMessages,
        changed,
        bindings_removed: unbound,
      },
      at: now,
    });
  });
  return (await slackConnectionOf(who.accountId)) as SlackConnectionView;
}

/** What a reconnect changes of the connection that decides who a click answers as (no secret named). */
function changedParts(before: SlackConnection, teamId: string, botToken: string, signingSecret: string): string[] {
  const row = { account_id: before.accountId };
  const oldToken = openSecret(before.botTokenSealed, sealContext("slackBotToken", row));
  const oldSecret = openSecret(before.signingSecretSealed, sealContext("slackSigningSecret", row));
  return [
    ...(before.teamId !== teamId ? ["workspace"] : []),
    ...(sameSecret(oldToken, botToken) ? [] : ["bot_token"]),
    ...(sameSecret(oldSecret, signingSecret) ? [] : ["signing_secret"]),
  ];
}

/**
 * The connection changed (or went): every binding of the account goes, and every unused bind link —
 * each removal audited in the account's trail and the person's own stream, as a removal is
 * everywhere else (bindings.ts `auditSlackBinding`). Returns how many bindings went.
 */
async function unbindAll(
  tx: Tx,
  accountId: string,
  actor: string,
  why: { reason: "connection_changed"; changed: string[] } | { reason: "disconnected" },
  at: Date,
) {
  await tx.slackBindToken.deleteMany({ where: { accountId, usedAt: null } });
  const rows = await tx.slackIdentity.findMany({ where: { accountId } });
  if (rows.length === 0) return 0;
  const { slug } = await tx.account.findUniqueOrThrow({ where: { id: accountId }, select: { slug: true } });
  await tx.slackIdentity.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
  for (const r of rows)
    await auditSlackBinding(
      tx,
      AUDIT_EVENT.slackUserUnbound,
      {
        accountId,
        slug,
        userId: r.userId,
        accountActor: actor,
        personActor: `system:slack_${why.reason}`,
        identityId: r.id,
        teamId: r.teamId,
        slackUserId: r.slackUserId,
        detail: { ...why },
      },
      at,
    );
  return rows.length;
}

/** Where items go: a channel (or none) and whether people get direct messages. */
export async function setSlackDestinations(
  who: SlackAdmin,
  input: { channelId: unknown; directMessages: unknown },
): Promise<{ changed: string[] }> {
  requireAdmin(who);
  const channelId = parseChannelId(input.channelId);
  const directMessages = input.directMessages;
  if (typeof directMessages !== "boolean") throw new HubError("validation_error", "direct messages: must be on or off");
  const now = clock.now();
  return db().$transaction(async (tx) => {
    const row = await tx.slackConnection.findUnique({ where: { accountId: who.accountId } });
    if (!row) throw new HubError("not_found", "this account has no Slack connection");
    const changed = [
      ...(row.channelId !== channelId ? ["channel_id"] : []),
      ...(row.directMessages !== directMessages ? ["direct_messages"] : []),
    ];
    if (changed.length === 0) return { changed };
    await tx.slackConnection.update({
      where: { accountId: who.accountId },
      data: { channelId, directMessages, updatedAt: now },
    });
    await writeAudit(tx, {
      accountId: who.accountId,
      actor: who.actor,
      event: AUDIT_EVENT.slackSettingsChanged,
      detail: { changed, channel_id: channelId, direct_messages: directMessages },
      at: now,
    });
    return { changed };
  });
}

/** Forgets the app's token and secret, and with them every binding (a reconnect is a new secret); owners only. */
export async function disconnectSlack(who: SlackAdmin): Promise<{ disconnected: boolean }> {
  requireOwner(who);
  const now = clock.now();
  return db().$transaction(async (tx) => {
    const gone = await tx.slackConnection.deleteMany({ where: { accountId: who.accountId } });
    if (gone.count === 0) return { disconnected: false };
    const unbound = await unbindAll(tx, who.accountId, who.actor, { reason: "disconnected" }, now);
    await writeAudit(tx, {
      accountId: who.accountId,
      actor: who.actor,
      event: AUDIT_EVENT.slackDisconnected,
      detail: { bindings_removed: unbound },
      at: now,
    });
    return { disconnected: true };
  });
}
