/**
 * Every sealed value the Hub keeps (#19): per purpose, the table and column that hold it and the
 * columns that identify its row. The identifying values are the value's `SealContext` (its AEAD
 * associated data, lib/secrets.ts), so a value copied into another row or column does not open.
 * The start-up re-seal (reseal.ts) and `ma2h-hub secrets rotate` (rotate.ts) walk this list; a
 * sealed column missing from it is caught by test/sealed-values.test.ts.
 */
import type { SealContext } from "../secrets";

export interface SealedColumn {
  table: string;
  column: string;
  /** Columns that together identify one row (unique), in the order they enter the context. */
  rowKey: readonly string[];
}

export const SEALED = {
  /** A callback binding's named secret (§9.4): whose binding, which ref. */
  bindingSecret: { table: "binding_secrets", column: "sealed", rowKey: ["binding_id", "ref"] },
  /** The private half of a Hub signing key (§9.2), by its kid. */
  signingKey: { table: "signing_keys", column: "sealed_private_key", rowKey: ["kid"] },
  /** The private half of an audit checkpoint signing key, by its kid. */
  auditSigningKey: { table: "audit_signing_keys", column: "sealed_private_key", rowKey: ["kid"] },
  /** An account's Slack bot token and signing secret (#17): one purpose each, same row. */
  slackBotToken: { table: "slack_connections", column: "bot_token_sealed", rowKey: ["account_id"] },
  slackSigningSecret: { table: "slack_connections", column: "signing_secret_sealed", rowKey: ["account_id"] },
  /** The Hub's VAPID private key (#17), the singleton row. */
  vapidPrivateKey: { table: "hub_vapid_keys", column: "private_key_sealed", rowKey: ["id"] },
  /** A browser push subscription's RFC 8291 auth secret (#17), by subscription id. */
  pushSubscriptionAuth: { table: "push_subscriptions", column: "auth_sealed", rowKey: ["id"] },
} as const satisfies Record<string, SealedColumn>;

export type SealPurpose = keyof typeof SEALED;

type RowKeyOf<P extends SealPurpose> = (typeof SEALED)[P]["rowKey"][number];

/** The context of the `purpose` value in the row identified by `row` (column → value). */
export function sealContext<P extends SealPurpose>(
  purpose: P,
  row: Readonly<Record<RowKeyOf<P>, string | number>>,
): SealContext {
  const key: readonly string[] = SEALED[purpose].rowKey;
  const values = row as Readonly<Record<string, string | number>>;
  return { purpose, row: key.map((c) => [c, String(values[c])] as const) };
}

/** Every purpose, in a fixed order (re-seal and rotation walk them so). */
export const SEAL_PURPOSES = Object.keys(SEALED) as SealPurpose[];

/**
 * The migration runner's advisory lock (server/migrate.ts): the start-up re-seal runs under it, and
 * a rotation takes it too, so the two never interleave with each other or with a migration.
 */
export const MIGRATION_LOCK = 0x6d613268; // "ma2h"
