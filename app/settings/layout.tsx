import Link from "next/link";
import type { ReactNode } from "react";
import { requireHuman } from "@/app/_auth/current-human";
import "../inbox/inbox.css";
import "../admin/admin.css";

export const dynamic = "force-dynamic";
export const metadata = { title: "Settings · MA2H Hub", referrer: "no-referrer" };

/** The signed-in shell of a person's own settings; each page and action checks the session again. */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/settings/tokens");
  return (
    <div className="shell">
      <header className="topbar">
        <Link prefetch={false} href="/inbox" className="brand">
          MA2H <span>Settings</span>
        </Link>
        <nav className="hub-nav">
          <Link prefetch={false} href="/inbox">
            Inbox
          </Link>
        </nav>
        <span className="whoami" title={human.email}>
          {human.name ?? human.email}
        </span>
        <a href="/api/auth/signout" className="signout">
          Sign out
        </a>
      </header>
      {children}
    </div>
  );
}
