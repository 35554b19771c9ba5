/**
 * The start-up re-seal: values sealed before purpose binding (format v1, associated data the
 * version alone) are opened and sealed again for their purpose and row (v2). A SQL migration cannot
 * do it — it has no key — so the migration runner (server/migrate.ts) calls this after the SQL
 * migrations, under its advisory lock, in one transaction. Idempotent: a second run finds no v1.
 * This and rotate.ts are the only callers of `openLegacySecret`.
 */
import {
  currentSealKey,
  isLegacySealed,
  openLegacySecret,
  openSecret,
  type SealContext,
  sealSecret,
  type SealKey,
} from "../secrets";
import { SEAL_PURPOSES } from "./catalogue";
import { inTransaction, lockedRows, replaceValue } from "./rows";
import type { SqlClient } from "./rows.sql";

export interface ResealReport {
  resealed: number;
  /**
   * Old values that do not open under the current key (sealed under a secret changed since, so
   * already unusable in format v1). Left as they are — still unusable, never opened — and named so
   * the operator can re-enter them; blocking start over them would take the whole Hub down.
   */
  unopenable: string[];
}

/** Re-seals every old-format value. The key is derived only when there is something to re-seal. */
export async function resealLegacyValues(
  client: SqlClient,
  keyOf: () => SealKey = currentSealKey,
): Promise<ResealReport> {
  return inTransaction(client, async () => {
    const report: ResealReport = { resealed: 0, unopenable: [] };
    let key: SealKey | null = null;
    for (const purpose of SEAL_PURPOSES) {
      for (const row of await lockedRows(client, purpose, true)) {
        key ??= keyOf();
        let plaintext: string;
        try {
          plaintext = openLegacySecret(row.value, key);
        } catch {
          report.unopenable.push(row.label);
          continue;
        }
        await replaceValue(client, row, sealSecret(plaintext, row.ctx, key));
        report.resealed++;
      }
    }
    report.resealed += await bindRowKeyOnlyValues(client, keyOf);
    return report;
  });
}

/**
 * Values of a `boundTo` purpose sealed before the parent's columns entered their context (a binding
 * secret sealed for its binding and ref, before its destination): opened under that context once
 * and sealed again under the full one. A value that opens under neither is left for its reader to
 * refuse. Without key material nothing can be opened, so nothing is touched.
 */
async function bindRowKeyOnlyValues(client: SqlClient, keyOf: () => SealKey): Promise<number> {
  let key: SealKey | null = null;
  let count = 0;
  for (const purpose of SEAL_PURPOSES) {
    for (const row of await lockedRows(client, purpose, false)) {
      if (row.rowKeyCtx === null || isLegacySealed(row.value)) continue;
      try {
        key ??= keyOf();
      } catch {
        return count;
      }
      if (opens(row.value, row.ctx, key)) continue;
      const plaintext = opens(row.value, row.rowKeyCtx, key);
      if (plaintext === null) continue;
      await replaceValue(client, row, sealSecret(plaintext, row.ctx, key));
      count++;
    }
  }
  return count;
}

function opens(value: string, ctx: SealContext, key: SealKey): string | null {
  try {
    return openSecret(value, ctx, key);
  } catch {
    return null;
  }
}
