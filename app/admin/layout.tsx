import type { ReactNode } from "react";
import { requireHuman } from "@/lib/next/current-human";
import { TopBar } from "@/components/TopBar";
import { adminAccountsOf } from "@/lib/principals/seats";
import "../inbox/inbox.css";
import "./admin.css";

export const dynamic = "force-dynamic";
export const metadata = { title: "Admin · MA2H Hub", referrer: "no-referrer" };

/** The signed-in shell of the admin screens; each page checks the session and the seat again. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/admin");
  return (
    <div className="shell">
      <TopBar human={human} administers={(await adminAccountsOf(human.userId)).length > 0} section="Admin" />
      {children}
    </div>
  );
}
