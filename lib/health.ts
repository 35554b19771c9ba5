/** Liveness and readiness (no credentials). Ready means the database answers and is migrated. */
import { probeMigratedSchema } from "./health.sql";

export async function checkReady(): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const checks: Record<string, string> = {};
  try {
    await probeMigratedSchema();
    checks.database = "ok";
  } catch {
    checks.database = "unavailable";
  }
  return { ok: Object.values(checks).every((v) => v === "ok"), checks };
}
