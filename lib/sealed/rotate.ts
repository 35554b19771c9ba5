/**
 * `ma2h-hub secrets rotate --from-env OLD_VAR` (docs/DEPLOYMENT.md "Rotating AUTH_SECRET"):
 * every sealed value in the catalogue is opened under the key of the OLD secret and sealed again
 * under the current one, in ONE transaction under the migration lock — all of it or nothing. A value
 * already under the current key is left (so a re-run after success is harmless); a value that opens
 * under neither rolls everything back and is named (table, column, row), never shown.
 */
import pg from "pg";
import { env } from "../env";
import { HubError } from "@ma2h/protocol/errors";
import {
  currentSealKey,
  deriveSealKey,
  isLegacySealed,
  openLegacySecret,
  openSecret,
  sealSecret,
  type SealKey,
} from "../secrets";
import { SEAL_PURPOSES, type SealPurpose } from "./catalogue";
import { lockMigrationsForTransaction } from "./rotate.sql";
import { inTransaction, lockedRows, replaceValue, type SealedRow } from "./rows";
import type { SqlClient } from "./rows.sql";

export interface RotateReport {
  /** Values moved from the old key to the current one, per purpose and in total. */
  rotated: number;
  /** Values that were already under the current key (a repeated run). */
  alreadyCurrent: number;
  byPurpose: Record<SealPurpose, number>;
}

function tryOpen(row: SealedRow, key: SealKey): string | null {
  try {
    // An old-format value (a Hub that has not started since format v2) is bound to nothing yet: it opens
    // only here and in the start-up re-seal, and leaves in the new format.
    return isLegacySealed(row.value) ? openLegacySecret(row.value, key) : openSecret(row.value, row.ctx, key);
  } catch {
    return null;
  }
}

/** Re-seals every value from `from` to `to` on `client`, in one transaction. */
export async function rotateSealedValues(client: SqlClient, from: SealKey, to: SealKey): Promise<RotateReport> {
  return inTransaction(client, async () => {
    await lockMigrationsForTransaction(client);
    const byPurpose = Object.fromEntries(SEAL_PURPOSES.map((p) => [p, 0])) as Record<SealPurpose, number>;
    const report: RotateReport = { rotated: 0, alreadyCurrent: 0, byPurpose };
    for (const purpose of SEAL_PURPOSES) {
      for (const row of await lockedRows(client, purpose, false)) {
        const underOld = tryOpen(row, from);
        if (underOld !== null) {
          await replaceValue(client, row, sealSecret(underOld, row.ctx, to));
          report.rotated++;
          byPurpose[purpose]++;
          continue;
        }
        const underNew = tryOpen(row, to);
        if (underNew === null) {
          throw new HubError(
            "invalid_field",
            `${row.label} opens under neither the old secret nor the current one; nothing was changed`,
          );
        }
        if (isLegacySealed(row.value)) await replaceValue(client, row, sealSecret(underNew, row.ctx, to));
        report.alreadyCurrent++;
      }
    }
    return report;
  });
}

/** The CLI's entry: the old secret from the environment variable `oldVar`, the database from env(). */
export async function rotateSecretsFromEnv(oldVar: string): Promise<RotateReport> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(oldVar))
    throw new HubError(
      "validation_error",
      `--from-env needs an environment variable name, not ${JSON.stringify(oldVar)}`,
    );
  const old = process.env[oldVar];
  if (!old) throw new HubError("validation_error", `${oldVar} is not set: put the previous secret in it`);
  const current = env().secretsKeyMaterial;
  if (!current) throw new HubError("validation_error", "AUTH_SECRET (or MA2H_SECRETS_KEY) must hold the new secret");
  if (old === current)
    throw new HubError("validation_error", `${oldVar} holds the current secret: set the new one first, then rotate`);
  const client = new pg.Client({ connectionString: env().DATABASE_URL });
  await client.connect();
  try {
    return await rotateSealedValues(client, deriveSealKey(old), currentSealKey());
  } finally {
    await client.end();
  }
}
