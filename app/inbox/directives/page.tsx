import Link from "next/link";
import { requireHuman } from "@/lib/next/current-human";
import { LiveRefresh } from "@/components/LiveRefresh";
import { directivesForHuman } from "@/lib/inbox/directives";
import { DirectiveTable } from "../_components/directive-table";

export const dynamic = "force-dynamic";
export const metadata = { title: "Directives · MA2H Hub", referrer: "no-referrer" };

/** Every directive sent in the person's accounts, with its live delivery track (§14.2). */
export default async function DirectivesPage() {
  const human = await requireHuman("/inbox/directives");
  const rows = await directivesForHuman(human.userId);
  return (
    <main className="directives-page">
      <nav className="crumbs">
        <Link prefetch={false} href="/inbox">
          ← Inbox
        </Link>
      </nav>
      <h1>Directives</h1>
      <p className="hint">To send one, open an agent from an item or from this list.</p>
      <DirectiveTable rows={rows} />
      <LiveRefresh />
    </main>
  );
}
