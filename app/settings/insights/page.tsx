import Link from "next/link";
import { notFound } from "next/navigation";
import { InsightsView } from "@/components/Insights";
import { insightsTables, ownSeat, parseWindow, personInsights } from "@/lib/insights/insights";
import { requireHuman } from "@/lib/next/current-human";
import { seatsOf } from "@/lib/principals/seats";

export const dynamic = "force-dynamic";

/** The person's own insights in one of their accounts (docs/inbox.md "Insights"): only their answers. */
export default async function MyInsightsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const human = await requireHuman("/settings/insights");
  const q = await searchParams;
  const slug = typeof q.account === "string" ? q.account : undefined;
  const seat = await ownSeat(human.userId, slug);
  if (!seat) notFound();
  const ins = await personInsights(seat, parseWindow(q.days));
  const others = (await seatsOf(human.userId)).filter((s) => s.slug !== seat.slug);
  const account = `account=${encodeURIComponent(seat.slug)}&`;
  return (
    <main>
      <section className="panel">
        <h1>My insights</h1>
        <p className="hint">
          Your own answers as <code>human:{seat.handle}</code> in <strong>{seat.slug}</strong>, for asks created in the
          window: only you (and the account&apos;s owners and admins, on theirs) see them. Hours and weekdays are in
          UTC.
          {others.length > 0 && (
            <>
              {" "}
              Other accounts:{" "}
              {others.map((s) => (
                <Link prefetch={false} key={s.slug} href={`/settings/insights?account=${encodeURIComponent(s.slug)}`}>
                  {s.slug}{" "}
                </Link>
              ))}
            </>
          )}
        </p>
      </section>
      <InsightsView
        tables={insightsTables(ins)}
        days={ins.days}
        base={`/settings/insights?${account}`}
        exportBase={`/settings/insights/export?${account}`}
        windowLabel={`${ins.from.toISOString().slice(0, 16)} – ${ins.to.toISOString().slice(0, 16)} UTC`}
      />
    </main>
  );
}
