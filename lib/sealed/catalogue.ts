/**
 * Every sealed value the Hub keeps: per purpose, the table and column that hold it and the
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
  /**
   * Columns of a parent row that also enter the context, after the row key: what the value is FOR.
   * `via` is this table's column naming the parent's `id`.
   */
  boundTo?: { table: string; via: string; columns: readonly string[] };
}

export const SEALED = {
  /**
   * A callback binding's named secret (§9.4): whose binding, which ref — and the binding's
   * destination (scheme, host, port, path prefix), so a binding pointed at another host by whoever
   * can write the table no longer opens its secret: it is sent only where it was approved for.
   */
  bindingSecret: {
    table: "binding_secrets",
    column: "sealed",
    rowKey: ["binding_id", "ref"],
    boundTo: { table: "callback_bindings", via: "binding_id", columns: ["scheme", "host", "port", "path_prefix"] },
  },
  /**
   * A binding's Standard Webhooks secret (`whsec_…`, opt-in): its own row and destination, so a
   * binding pointed at another host no longer opens it — like the binding's named secrets.
   */
  bindingStandardWebhooks: {
    table: "callback_bindings",
    column: "standard_webhooks_secret_sealed",
    rowKey: ["id", "scheme", "host", "port", "path_prefix"],
  },
  /** The private half of a Hub signing key (§9.2), by its kid. */
  signingKey: { table: "signing_keys", column: "sealed_private_key", rowKey: ["kid"] },
  /** The private half of an audit checkpoint signing key, by its kid. */
  auditSigningKey: { table: "audit_signing_keys", column: "sealed_private_key", rowKey: ["kid"] },
  /** An account's Slack bot token and signing secret: one purpose each, same row. */
  slackBotToken: { table: "slack_connections", column: "bot_token_sealed", rowKey: ["account_id"] },
  slackSigningSecret: { table: "slack_connections", column: "signing_secret_sealed", rowKey: ["account_id"] },
  /** An account's Microsoft Teams bot client secret. */
  teamsAppSecret: { table: "teams_connections", column: "app_secret_sealed", rowKey: ["account_id"] },
  /** The Hub's VAPID private key, the singleton row. */
  vapidPrivateKey: { table: "hub_vapid_keys", column: "private_key_sealed", rowKey: ["id"] },
  /** A browser push subscription's RFC 8291 auth secret, by subscription id. */
  pushSubscriptionAuth: { table: "push_subscriptions", column: "auth_sealed", rowKey: ["id"] },
} as const satisfies Record<string, SealedColumn>;

export type SealPurpose = keyof typeof SEALED;

type RowKeyOf<P extends SealPurpose> = (typeof SEALED)[P]["rowKey"][number];
type BoundOf<P extends SealPurpose> = (typeof SEALED)[P] extends {
  boundTo: { columns: readonly (infer C extends string)[] };
}
  ? C
  : never;

/** Every column whose value enters the context, in order: the row key, then the bound parent's. */
export function contextColumns(purpose: SealPurpose): readonly string[] {
  const entry: SealedColumn = SEALED[purpose];
  return [...entry.rowKey, ...(entry.boundTo?.columns ?? [])];
}

/** The context of the `purpose` value in the row identified by `row` (column → value). */
export function sealContext<P extends SealPurpose>(
  purpose: P,
  row: Readonly<Record<RowKeyOf<P> | BoundOf<P>, string | number>>,
): SealContext {
  const values = row as Readonly<Record<string, string | number>>;
  return { purpose, row: contextColumns(purpose).map((c) => [c, String(values[c])] as const) };
}

/**
 * The context a `boundTo` purpose had before its parent's columns joined it (the row key alone):
 * only the start-up re-seal opens a value under it, to seal it again under the full context.
 */
export function rowKeyContext(purpose: SealPurpose, row: Readonly<Record<string, string>>): SealContext {
  return { purpose, row: SEALED[purpose].rowKey.map((c) => [c, String(row[c])] as const) };
}

/** Every purpose, in a fixed order (re-seal and rotation walk them so). */
export const SEAL_PURPOSES = Object.keys(SEALED) as SealPurpose[];

/**
 * The migration runner's advisory lock (server/migrate.ts): the start-up re-seal runs under it, and
 * a rotation takes it too, so the two never interleave with each other or with a migration.
 */
export const MIGRATION_LOCK = 0x6d613268; // "ma2h"
