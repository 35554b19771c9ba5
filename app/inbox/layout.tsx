import Link from "next/link";
import type { ReactNode } from "react";
import { requireHuman } from "@/app/_auth/current-human";
import { adminAccountsOf } from "@/lib/principals/members";
import "./inbox.css";

export const dynamic = "force-dynamic";

/** The signed-in shell. Each page and action checks the session again (layouts do not re-run). */
export default async function InboxLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/inbox");
  // The Admin link only for owners and admins (the pages themselves 404 for everyone else).
  const administers = (await adminAccountsOf(human.userId)).length > 0;
  return (
    <div className="shell">
      <header className="topbar">
        <Link prefetch={false} href="/inbox" className="brand">
          MA2H <span>Inbox</span>
        </Link>
        <nav className="topnav" aria-label="Directives, settings and administration">
          <Link prefetch={false} href="/inbox/directives" data-testid="nav-directives">
            Directives
          </Link>
          <Link prefetch={false} href="/settings/tokens" data-testid="nav-tokens">
            My tokens
          </Link>
          {administers && (
            <Link prefetch={false} href="/admin" data-testid="nav-admin">
              Admin
            </Link>
          )}
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
