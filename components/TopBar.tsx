/**
 * The signed-in header of every page (inbox, admin, settings): one navigation — Inbox, Directives,
 * Agent traffic (agent↔agent messages, §8.7.1), Settings (tokens, notifications), and Admin for
 * owners and admins — the person, and sign-out. The Admin link is only a convenience: the admin
 * pages themselves answer 404 to anyone else.
 */
import Link from "next/link";

/** The signed-in person as the header names them. */
export interface TopBarPerson {
  email: string;
  name: string | null;
}

/** `administers`: whether the person is an owner or admin anywhere (the layout looks it up). */
export function TopBar({
  human,
  administers,
  section,
}: {
  human: TopBarPerson;
  administers: boolean;
  section: "Inbox" | "Admin" | "Settings";
}) {
  return (
    <header className="topbar">
      <Link prefetch={false} href="/inbox" className="brand">
        MA2H <span>{section}</span>
      </Link>
      <nav className="topnav" aria-label="Directives, agent traffic, settings and administration">
        {section !== "Inbox" && (
          <Link prefetch={false} href="/inbox" data-testid="nav-inbox">
            Inbox
          </Link>
        )}
        <Link prefetch={false} href="/inbox/directives" data-testid="nav-directives">
          Directives
        </Link>
        <Link prefetch={false} href="/inbox/traffic" data-testid="nav-traffic">
          Agent traffic
        </Link>
        <Link prefetch={false} href="/settings/tokens" data-testid="nav-tokens">
          Settings
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
