/**
 * The signed-in header of every page (inbox, admin, settings): one navigation — Inbox, Directives,
 * My tokens, and Admin for owners and admins — the person, and sign-out. The Admin link is only a
 * convenience: the admin pages themselves answer 404 to anyone else.
 */
import Link from "next/link";
import { adminAccountsOf } from "@/lib/principals/members";
import type { SessionHuman } from "@/lib/principals/web-sessions";

export async function TopBar({ human, section }: { human: SessionHuman; section: "Inbox" | "Admin" | "Settings" }) {
  const administers = (await adminAccountsOf(human.userId)).length > 0;
  return (
    <header className="topbar">
      <Link prefetch={false} href="/inbox" className="brand">
        MA2H <span>{section}</span>
      </Link>
      <nav className="topnav" aria-label="Directives, settings and administration">
        {section !== "Inbox" && (
          <Link prefetch={false} href="/inbox" data-testid="nav-inbox">
            Inbox
          </Link>
        )}
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
  );
}
