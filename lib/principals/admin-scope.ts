/**
 * Who performs an administrative change (accounts, users, tokens, agents, keys, bindings) and over
 * which account: the attested actor recorded in the audit row, the account the caller may touch,
 * and the owner-only membership changes.
 */
import { HubError } from "@ma2h/protocol/errors";

/** The attested actor of an administrative change. The CLI acts as `system:cli`. */
export interface AdminOptions {
  actor?: string;
  /**
   * The account the caller administers (the web admin). When set, an object of any other account
   * is `404 not_found` — indistinguishable from an unknown id (§9.1) — and untouched, so an
   * account's administrator can neither see nor change another account. The CLI, which
   * administers the whole Hub, leaves it unset.
   */
  accountId?: string;
  /**
   * The acting person's role in that account (the web admin). An `admin` may not grant, change or
   * remove the `owner` role (docs/decisions/inbox-and-admin.md, "Owners are made by owners"); unset — the CLI — has
   * the operator's full authority.
   */
  role?: string;
}

/** Refuses an owner-level membership change to a non-owner administrator. */
export function requireOwnerFor(opts: AdminOptions | undefined, what: string): void {
  if (opts?.role !== undefined && opts.role !== "owner") {
    throw new HubError("not_authorized", `only an owner can ${what}`);
  }
}

export const CLI_ACTOR = "system:cli";

export function actorOf(opts: AdminOptions | undefined): string {
  return opts?.actor ?? CLI_ACTOR;
}

/** The Prisma filter that confines a lookup to `opts.accountId`, when one is set. */
export function inScope(opts: AdminOptions | undefined): { accountId?: string } {
  return opts?.accountId ? { accountId: opts.accountId } : {};
}
