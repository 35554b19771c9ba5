import Link from "next/link";
import type { ReactNode } from "react";
import { currentHuman } from "@/lib/next/current-human";
import { ServiceWorker } from "@/components/ServiceWorker";
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
  ["devices", "Devices"],
  ["delegation", "Out of office"],
  ["rules", "Standing rules"],
  ["identities", "Identities"],
  ["slack", "Slack"],
  ["activity", "Activity"],
  ["insights", "My insights"],
] as const;

/**
 * The signed-in shell of a person's own settings. Each page (and action) requires the session
 * itself and sends a signed-out person to sign in with that page as the way back — so the shell
 * only renders around a signed-in person, and leaves the redirect to the page.
 */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const human = await currentHuman();
  if (!human) return children;
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
      <ServiceWorker />
    </div>
  );
}
