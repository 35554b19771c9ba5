import { checkReady } from "@/lib/health";

export const dynamic = "force-dynamic";

/** Readiness: 200 when the database answers and is migrated, else 503. No credentials. */
export async function GET(): Promise<Response> {
  const { ok, checks } = await checkReady();
  return Response.json(
    { status: ok ? "ok" : "unavailable", checks },
    { status: ok ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
