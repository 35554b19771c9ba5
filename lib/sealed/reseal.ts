/**
 * The start-up re-seal (#19): values sealed before purpose binding (format v1, associated data the
 * version alone) are opened and sealed again for their purpose and row (v2). A SQL migration cannot
 * do it — it has no key — so the migration runner (server/migrate.ts) calls this after the SQL
 * migrations, under its advisory lock, in one transaction. Idempotent: a second run finds no v1.
 * This and rotate.ts are the only callers of `openLegacySecret`.
 */
import { currentSealKey, openLegacySecret, sealSecret, type SealKey } from "../secrets";
import { SEAL_PURPOSES } from "./catalogue";
import { inTransaction, lockedRows, replaceValue, type SqlClient } from "./rows";

export interface ResealReport {
  resealed: number;
  /**
   * Old values that do not open under the current key (sealed under a secret changed since, so
   * already unusable before #19). Left as they are — still unusable, never opened — and named so
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
    return report;
  });
}
