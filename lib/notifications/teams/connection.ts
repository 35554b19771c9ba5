/**
 * An account's Microsoft Teams bot (docs/notifications.md "Microsoft Teams: connecting"): an owner
 * gives the Bot Framework app id, the tenant and the app's client secret — checked by obtaining an
 * app token before anything is stored, the secret sealed (lib/secrets.ts) and never shown again —
 * and the channel asks are posted to (its conversation id and service URL, as the bot's
 * installation reports them). A change of the app id, the tenant or the secret, and a disconnect,
 * drops every Teams binding of the account (who a click answers as is vouched for by the bot it was
 * bound under). Every verb re-checks the role, changes nothing on bad input and writes an audit row
 * carrying no secret.
 */
import { timingSafeEqual } from "node:crypto";
import { AUDIT_EVENT } from "../../audit/events";
import { writeAudit } from "../../audit/write";
import { clock } from "../../clock";
import { db } from "../../db";
import type { TeamsConnection } from "../../generated/prisma/client";
import { HubError } from "@ma2h/protocol/errors";
import type { Role } from "../../principals/types";
import { openSecret, sealSecret } from "../../secrets";
import { sealContext } from "../../sealed/catalogue";
import { unbindAllTeams } from "./bindings";
import { appToken, serviceUrlAllowed } from "./connector";

export interface TeamsAdmin {
  accountId: string;
  role: Role;
  actor: string;
}

export interface TeamsConnectionView {
  appId: string;
  tenantId: string;
  channelId: string | null;
  serviceUrl: string | null;
  personalMessages: boolean;
  connectedBy: string;
  connectedAt: Date;
}

export interface OpenTeamsConnection extends TeamsConnectionView {
  accountId: string;
  appSecret: string;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A Teams channel's conversation id, as `19:…@thread.tacv2` (or the older `@thread.skype`). */
const CHANNEL_ID = /^19:[A-Za-z0-9_.=-]{1,200}@thread\.(tacv2|skype)$/;

function requireOwner(who: TeamsAdmin): void {
  if (who.role !== "owner")
    throw new HubError("not_authorized", "only an owner may connect, reconnect or disconnect the account's Teams bot");
}

function viewOf(row: TeamsConnection): TeamsConnectionView {
  return {
    appId: row.appId,
    tenantId: row.tenantId,
    channelId: row.channelId,
    serviceUrl: row.serviceUrl,
    personalMessages: row.personalMessages,
    connectedBy: row.connectedBy,
    connectedAt: row.createdAt,
  };
}

export async function teamsConnectionOf(accountId: string): Promise<TeamsConnectionView | null> {
  const row = await db().teamsConnection.findUnique({ where: { accountId } });
  return row ? viewOf(row) : null;
}

export async function openTeamsConnection(accountId: string): Promise<OpenTeamsConnection | null> {
  const row = await db().teamsConnection.findUnique({ where: { accountId } });
  if (!row) return null;
  return {
    accountId,
    ...viewOf(row),
    appSecret: openSecret(row.appSecretSealed, sealContext("teamsAppSecret", { account_id: accountId })),
  };
}

function text(v: unknown): string {
  return typeof v === "string" ? v.trim() : "";
}

/**
 * Connects (or reconnects) the account's Teams bot; owners only. The secret is checked by
 * obtaining an app token; one the token endpoint refuses stores nothing.
 */
export async function connectTeams(
  who: TeamsAdmin,
  input: {
    appId: unknown;
    tenantId: unknown;
    appSecret: unknown;
    channelId?: unknown;
    serviceUrl?: unknown;
    personalMessages?: unknown;
  },
): Promise<TeamsConnectionView> {
  requireOwner(who);
  const appId = text(input.appId).toLowerCase();
  const tenantId = text(input.tenantId).toLowerCase();
  const appSecret = text(input.appSecret);
  if (!GUID.test(appId)) throw new HubError("validation_error", "app id: the bot's Microsoft app id (a GUID)");
  if (!GUID.test(tenantId)) throw new HubError("validation_error", "tenant: the Entra tenant id (a GUID)");
  if (appSecret.length < 8 || appSecret.length > 256 || /\s/.test(appSecret))
    throw new HubError("validation_error", "app secret: the app's client secret value");
  const channelId = text(input.channelId) || null;
  const serviceUrl = text(input.serviceUrl) || null;
  const personalMessages = input.personalMessages === true;
  if (channelId !== null && serviceUrl === null)
    throw new HubError("validation_error", "service URL: needed with a channel");
  if (personalMessages && serviceUrl === null)
    throw new HubError("validation_error", "service URL: needed for personal messages");
  if (channelId !== null && !CHANNEL_ID.test(channelId))
    throw new HubError("validation_error", "channel: a Teams channel conversation id (19:…@thread.tacv2)");
  if (serviceUrl !== null && !serviceUrlAllowed(serviceUrl))
    throw new HubError("validation_error", "service URL: not one of Microsoft's Bot Connector hosts");

  const token = await appToken({ appId, tenantId, appSecret });
  if (!token.ok)
    throw new HubError("validation_error", `the token endpoint did not accept the app secret (${token.errorClass})`);

  const now = clock.now();
  await db().$transaction(async (tx) => {
    const before = await tx.teamsConnection.findUnique({ where: { accountId: who.accountId } });
    const sealed = sealSecret(appSecret, sealContext("teamsAppSecret", { account_id: who.accountId }));
    const data = {
      appId,
      tenantId,
      appSecretSealed: sealed,
      channelId,
      serviceUrl,
      personalMessages,
      connectedBy: who.actor,
      updatedAt: now,
    };
    await tx.teamsConnection.upsert({
      where: { accountId: who.accountId },
      create: { accountId: who.accountId, ...data, createdAt: now },
      update: { ...data, createdAt: now },
    });
    const changed = before === null ? ["connection"] : changedParts(before, appId, tenantId, appSecret);
    const unbound =
      changed.length > 0 ? await unbindAllTeams(tx, who.accountId, who.actor, "connection_changed", now) : 0;
    await writeAudit(tx, {
      accountId: who.accountId,
      actor: who.actor,
      event: AUDIT_EVENT.teamsConnected,
      detail: { app_id: appId, tenant_id: tenantId, channel_id: channelId, changed, bindings_removed: unbound },
      at: now,
    });
  });
  return (await teamsConnectionOf(who.accountId)) as TeamsConnectionView;
}

function changedParts(before: TeamsConnection, appId: string, tenantId: string, appSecret: string): string[] {
  const old = Buffer.from(
    openSecret(before.appSecretSealed, sealContext("teamsAppSecret", { account_id: before.accountId })),
  );
  const now = Buffer.from(appSecret);
  return [
    ...(before.appId !== appId ? ["app_id"] : []),
    ...(before.tenantId !== tenantId ? ["tenant"] : []),
    ...(old.length === now.length && timingSafeEqual(old, now) ? [] : ["app_secret"]),
  ];
}

/** Forgets the bot's secret, and with it every binding; owners only. */
export async function disconnectTeams(who: TeamsAdmin): Promise<{ disconnected: boolean }> {
  requireOwner(who);
  const now = clock.now();
  return db().$transaction(async (tx) => {
    const gone = await tx.teamsConnection.deleteMany({ where: { accountId: who.accountId } });
    if (gone.count === 0) return { disconnected: false };
    const unbound = await unbindAllTeams(tx, who.accountId, who.actor, "disconnected", now);
    await writeAudit(tx, {
      accountId: who.accountId,
      actor: who.actor,
      event: AUDIT_EVENT.teamsDisconnected,
      detail: { bindings_removed: unbound },
      at: now,
    });
    return { disconnected: true };
  });
}
