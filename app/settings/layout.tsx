import type { ReactNode } from "react";
import { requireHuman } from "@/app/_auth/current-human";
import { TopBar } from "@/components/TopBar";
import "../inbox/inbox.css";
import "../admin/admin.css";

export const dynamic = "force-dynamic";
export const metadata = { title: "Settings · MA2H Hub", referrer: "no-referrer" };

/** The signed-in shell of a person's own settings; each page and action checks the session again. */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/settings/tokens");
  return (
    <div className="shell">
      <TopBar human={human} section="Settings" />
      {children}
    </div>
  );
}
