import Link from "next/link";

/**
 * The way back from an item (or its tombstone) to the inbox, and the account it belongs to. An
 * addressed (agent↔agent) message is not in the inbox (§8.7.1): its way back is the traffic view.
 */
export function ItemCrumbs({ account, addressed = false }: { account: string; addressed?: boolean }) {
  return (
    <nav className="crumbs">
      {addressed ? (
        <Link prefetch={false} href="/inbox/traffic" data-testid="crumb-traffic">
          ← Agent traffic
        </Link>
      ) : (
        <Link prefetch={false} href="/inbox">
          ← Inbox
        </Link>
      )}
      <span className="account">{account}</span>
    </nav>
  );
}
