import Link from "next/link";
import type { ReactNode } from "react";
import { requireHuman } from "@/lib/next/current-human";
import { TopBar } from "@/components/TopBar";
import { adminAccountsOf } from "@/lib/principals/seats";
import "../inbox/inbox.css";
import "../admin/admin.css";

export const dynamic = "force-dynamic";
export const metadata = { title: "Settings · MA2H Hub", referrer: "no-referrer" };

/** The settings pages, in the order of their tabs. */
const TABS = [
  ["tokens", "My tokens"],
  ["notifications", "Notifications"],
  ["identities", "Identities"],
  ["activity", "Activity"],
] as const;

/** The signed-in shell of a person's own settings; each page and action checks the session again. */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const human = await requireHuman("/settings/tokens");
  return (
    <div className="shell">
      <TopBar human={human} administers={(await adminAccountsOf(human.userId)).length > 0} section="Settings" />
      <nav className="tabs" data-testid="settings-tabs">
        {TABS.map(([path, label]) => (
          <Link prefetch={false} key={path} href={`/settings/${path}`} data-testid={`settings-tab-${path}`}>
            {label}
          </Link>
        ))}
      </nav>
      {children}
    </div>
  );
}
