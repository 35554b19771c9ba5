import type { ReactNode } from "react";
import { requireHuman } from "@/app/_auth/current-human";
import { TopBar } from "@/components/TopBar";
import "../inbox/inbox.css";
import "./admin.css";

export const dynamic = "force-dynamic";
export const metadata = { title: "Admin · MA2H Hub", referrer: "no-referrer" };

/** The signed-in shell of the admin screens; each page checks the session and the seat again. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/admin");
  return (
    <div className="shell">
      <TopBar human={human} section="Admin" />
      {children}
    </div>
  );
}
