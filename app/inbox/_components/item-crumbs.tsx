import Link from "next/link";

/** The way back from an item (or its tombstone) to the inbox, and the account it belongs to. */
export function ItemCrumbs({ account }: { account: string }) {
  return (
    <nav className="crumbs">
      <Link prefetch={false} href="/inbox">
        ← Inbox
      </Link>
      <span className="account">{account}</span>
    </nav>
  );
}
