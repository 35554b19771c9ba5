/**
 * Shared pieces of the administrative verbs (accounts, users, tokens, agents, keys, bindings): the
 * default actor, the audit write, and the mapping of database unique violations to `invalid_field`.
 */
import type { Prisma } from "../generated/prisma/client";
import type { Tx } from "../db";
import { clock } from "../clock";
import { HubError } from "../protocol/errors";

/** The attested actor of an administrative change. The CLI acts as `system:cli`. */
export interface AdminOptions {
  actor?: string;
  /**
   * The account the caller administers (the web admin, issue #6 item 7). When set, an object of any
   * other account is `404 not_found` — indistinguishable from an unknown id (§9.1) — and untouched.
   * The CLI, which administers the whole Hub, leaves it unset.
   */
  accountId?: string;
  /**
   * The acting person's role in that account (the web admin). An `admin` may not grant, change or
   * remove the `owner` role (docs/decisions.md, "Owners are made by owners"); unset — the CLI — has
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

/** Appends one audit row. `detail` carries ids and names only — never a secret or credential. */
export async function audit(
  tx: Tx,
  row: { accountId: string; actor: string; event: string; detail?: Prisma.InputJsonValue },
): Promise<void> {
  await tx.auditEvent.create({
    data: { accountId: row.accountId, actor: row.actor, event: row.event, detail: row.detail, at: clock.now() },
  });
}

/** True for Prisma's unique-constraint violation (P2002): a concurrent or repeated create lost. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}

/** Runs `fn`, turning a unique violation into `422 invalid_field` with `message`. */
export async function uniquely<T>(message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw new HubError("invalid_field", message);
    throw err;
  }
}

/** Checks a value against a pattern, throwing `invalid_field` naming the field. */
export function requireMatch(field: string, value: string, pattern: RegExp, rule: string): string {
  if (!pattern.test(value)) throw new HubError("invalid_field", `${field} ${JSON.stringify(value)} is invalid: ${rule}`);
  return value;
}
