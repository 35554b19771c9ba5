/**
 * `GET /settings/insights/export?account=<slug>&days=7|30&format=csv|json` — the person's own
 * insights. Signed out, or no seat in that account: 404.
 */
import { insightsExport } from "@/lib/insights/insights";
import { currentHuman } from "@/lib/next/current-human";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  const human = await currentHuman();
  const q = new URL(req.url).searchParams;
  return insightsExport(human?.userId ?? null, "person", q.get("account") ?? undefined, q);
}
