/** Liveness and readiness (no credentials). Ready means the database answers and is migrated. */
import { db } from "./db";

export async function checkReady(): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const checks: Record<string, string> = {};
  try {
    await db().$queryRaw`SELECT 1 FROM messages LIMIT 1`;
    checks.database = "ok";
  } catch {
    checks.database = "unavailable";
  }
  return { ok: Object.values(checks).every((v) => v === "ok"), checks };
}
