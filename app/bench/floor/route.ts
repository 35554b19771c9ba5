/**
 * The framework's floor for `npm run bench:submit` (docs/PERFORMANCE.md): a route handler of
 * this same Next.js build doing the benchmark baseline's one parameterized INSERT through the Hub's
 * own pool (lib/db.ts) — no authentication, validation, audit or NOTIFY — so the Hub's submit is
 * compared with what the framework itself costs. Answers 404 unless both MA2H_DEV_MODE=1 and
 * MA2H_BENCH_FLOOR=1: it writes unauthenticated rows, so no production Hub may serve it.
 */
import { randomBytes } from "node:crypto";
import { env } from "@/lib/env";
import { runInsertFloorRow } from "./floor.sql";

export const dynamic = "force-dynamic";

function enabled(): boolean {
  const e = env();
  return e.MA2H_DEV_MODE && e.MA2H_BENCH_FLOOR;
}

export async function POST(req: Request): Promise<Response> {
  if (!enabled()) return new Response(null, { status: 404 });
  const text = await req.text();
  let body: { type?: unknown; agent?: { id?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(null, { status: 400 });
  }
  const id = `msg_${randomBytes(16).toString("hex")}`;
  const agentId = typeof body.agent?.id === "string" ? body.agent.id : "";
  const type = typeof body.type === "string" ? body.type : "";
  await runInsertFloorRow({ id, agentId, type, envelope: text, createdAt: new Date() });
  return Response.json({ id, status: "open" }, { status: 202 });
}
