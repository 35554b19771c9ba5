import type { ReactNode } from "react";
import { requireHuman } from "@/lib/next/current-human";
import { ServiceWorker } from "@/components/ServiceWorker";
import { TopBar } from "@/components/TopBar";
import { adminAccountsOf } from "@/lib/principals/seats";
import "./inbox.css";

export const dynamic = "force-dynamic";

/** The signed-in shell. Each page and action checks the session again (layouts do not re-run). */
export default async function InboxLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/inbox");
  return (
    <div className="shell">
      <TopBar human={human} administers={(await adminAccountsOf(human.userId)).length > 0} section="Inbox" />
      {children}
      <ServiceWorker />
    </div>
  );
}
