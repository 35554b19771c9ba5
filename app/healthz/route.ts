export const dynamic = "force-dynamic";

/** Liveness: the process answers. No credentials, no dependencies. */
export function GET(): Response {
  return Response.json({ status: "ok" }, { headers: { "cache-control": "no-store" } });
}
