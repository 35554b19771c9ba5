/**
 * `GET /admin/{account}/insights/export?days=7|30&format=csv|json` — the insights page's numbers.
 * Owner/admin only: anyone else, signed out included, gets the same 404 as an unknown account.
 */
import { insightsExport } from "@/lib/insights/insights";
import { currentHuman } from "@/lib/next/current-human";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ account: string }> }): Promise<Response> {
  const { account } = await params;
  const human = await currentHuman();
  return insightsExport(human?.userId ?? null, "account", account, new URL(req.url).searchParams);
}
