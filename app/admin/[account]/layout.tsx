import Link from "next/link";
import type { ReactNode } from "react";
import { adminAccountsOf } from "@/lib/principals/seats";
import { adminPage } from "@/lib/next/admin-page";

const TABS = [
  ["agents", "Agents & keys"],
  ["bindings", "Callback bindings"],
  ["members", "Members"],
  ["groups", "Groups"],
  ["policy", "Policy"],
  ["rules", "Standing rules"],
  ["notifications", "Notifications"],
  ["slack", "Slack"],
  ["teams", "Teams"],
  ["settings", "Settings"],
  ["audit", "Audit log"],
  ["insights", "Insights"],
] as const;

/** Tabs of one administered account (404 for anyone who is not its owner or admin). */
export default async function AccountAdminLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ account: string }>;
}) {
  const { account } = await params;
  const { human, seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/agents`);
  const others = (await adminAccountsOf(human.userId)).filter((s) => s !== seat.slug);
  const base = `/admin/${encodeURIComponent(seat.slug)}`;
  return (
    <div className="admin">
      <div className="admin-head">
        <h1>
          <span className="account">{seat.slug}</span> administration
        </h1>
        <span className="admin-as">
          you act as <code>{seat.actor}</code> ({seat.role})
        </span>
        {others.length > 0 && (
          <span className="admin-others">
            also:{" "}
            {others.map((s) => (
              <Link prefetch={false} key={s} href={`/admin/${encodeURIComponent(s)}/agents`}>
                {s}
              </Link>
            ))}
          </span>
        )}
      </div>
      <nav className="tabs" data-testid="admin-tabs">
        {TABS.map(([path, label]) => (
          <Link prefetch={false} key={path} href={`${base}/${path}`} data-testid={`tab-${path}`}>
            {label}
          </Link>
        ))}
      </nav>
      {children}
    </div>
  );
}
