import Link from "next/link";
import type { ReactNode } from "react";
import { requireHuman } from "@/app/_auth/current-human";
import "../inbox/inbox.css";
import "./admin.css";

export const dynamic = "force-dynamic";
export const metadata = { title: "Admin · MA2H Hub", referrer: "no-referrer" };

/** The signed-in shell of the admin screens; each page checks the session and the seat again. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/admin");
  return (
    <div className="shell">
      <header className="topbar">
        <Link prefetch={false} href="/inbox" className="brand">
          MA2H <span>Admin</span>
        </Link>
        <nav className="hub-nav">
          <Link prefetch={false} href="/inbox">
            Inbox
          </Link>
          <Link prefetch={false} href="/settings/tokens">
            My tokens
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
