import type { ReactNode } from "react";
import { requireHuman } from "@/app/_auth/current-human";
import { TopBar } from "@/components/TopBar";
import "./inbox.css";

export const dynamic = "force-dynamic";

/** The signed-in shell. Each page and action checks the session again (layouts do not re-run). */
export default async function InboxLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/inbox");
  return (
    <div className="shell">
      <TopBar human={human} section="Inbox" />
      {children}
    </div>
  );
}
