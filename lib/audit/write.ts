/**
 * The one writer of audit rows outside the single-statement SQL paths (which take their kinds from
 * events.ts). The trail is append-only; `detail` carries ids and names only — never a secret or
 * credential — because the admin page and the export show it verbatim. Two streams: an account's
 * (`writeAudit`) and a person's own (`writePersonAudit`: their tokens, identities and preferences,
 * read by them on /settings/activity and never written into an account they merely belong to).
 */
import type { Prisma } from "../generated/prisma/client";
import type { Tx } from "../db";
import { clock } from "../clock";
import type { AuditEventKind } from "./events";

export interface AuditRow {
  accountId: string;
  /** The message the event concerns, when it concerns one. */
  messageId?: string;
  /** Who did it: `agent:<id>`, `human:<handle>`, `system:<job>`. */
  actor: string;
  event: AuditEventKind;
  detail?: Prisma.InputJsonValue;
  /** Defaults to now; a verb that stamps other rows passes its own `now` so they agree. */
  at?: Date;
}

/** Appends one row or many, inside the caller's transaction. */
export async function writeAudit(tx: Tx, rows: AuditRow | readonly AuditRow[]): Promise<void> {
  const list = Array.isArray(rows) ? (rows as readonly AuditRow[]) : [rows as AuditRow];
  if (list.length === 0) return;
  const now = clock.now();
  await tx.auditEvent.createMany({
    data: list.map((r) => ({
      accountId: r.accountId,
      messageId: r.messageId,
      actor: r.actor,
      event: r.event,
      detail: r.detail,
      at: r.at ?? now,
    })),
  });
}

export interface PersonAuditRow {
  /** The person whose stream this is (their own tokens, identities, preferences). */
  userId: string;
  /** Who did it: `user:<id>` (the person), `system:cli` (the Hub's operator), `human:<handle>`. */
  actor: string;
  event: AuditEventKind;
  detail?: Prisma.InputJsonValue;
  at?: Date;
}

/** The actor of a person acting on their own things: no account, so no handle (§9.1 handles are per account). */
export function personActor(userId: string): string {
  return `user:${userId}`;
}

/** Appends to a person's own stream (no account), inside the caller's transaction. */
export async function writePersonAudit(tx: Tx, rows: PersonAuditRow | readonly PersonAuditRow[]): Promise<void> {
  const list = Array.isArray(rows) ? (rows as readonly PersonAuditRow[]) : [rows as PersonAuditRow];
  if (list.length === 0) return;
  const now = clock.now();
  await tx.auditEvent.createMany({
    data: list.map((r) => ({ userId: r.userId, actor: r.actor, event: r.event, detail: r.detail, at: r.at ?? now })),
  });
}
