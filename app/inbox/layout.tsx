import Link from "next/link";
import type { ReactNode } from "react";
import { requireHuman } from "@/app/_auth/current-human";
import "./inbox.css";

export const dynamic = "force-dynamic";

/** The signed-in shell. Each page and action checks the session again (layouts do not re-run). */
export default async function InboxLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/inbox");
  return (
    <div className="shell">
      <header className="topbar">
        <Link prefetch={false} href="/inbox" className="brand">
          MA2H <span>Inbox</span>
        </Link>
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
