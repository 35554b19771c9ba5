import { InsightsView } from "@/components/Insights";
import { accountInsights, insightsTables, parseWindow } from "@/lib/insights/insights";
import { adminPage } from "@/lib/next/admin-page";

export const dynamic = "force-dynamic";

/**
 * The account's insights (docs/inbox.md "Insights"): time to answer, expiries, standing rules,
 * arrivals per hour and the rubber-stamp signal over the last 7 or 30 days; owners and admins only.
 */
export default async function InsightsPage({
  params,
  searchParams,
}: {
  params: Promise<{ account: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/insights`);
  const ins = await accountInsights(seat, parseWindow((await searchParams).days));
  const base = `/admin/${encodeURIComponent(seat.slug)}/insights`;
  return (
    <main>
      <section className="panel">
        <h2>Insights</h2>
        <p className="hint">
          Asks created in the window, everyone&apos;s answers. Times are from an ask&apos;s arrival to its answer; hours
          and weekdays are in UTC.
        </p>
      </section>
      <InsightsView
        tables={insightsTables(ins)}
        days={ins.days}
        base={`${base}?`}
        exportBase={`${base}/export?`}
        windowLabel={`${ins.from.toISOString().slice(0, 16)} – ${ins.to.toISOString().slice(0, 16)} UTC`}
      />
    </main>
  );
}
