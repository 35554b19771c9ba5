/** Accounts: the tenancy boundary every agent, membership and message belongs to. */
import { db } from "../db";
import { HubError } from "../protocol/errors";
import { mintId } from "../protocol/ids";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { uniquely } from "../db-errors";
import { clock } from "../clock";
import { actorOf, requireOwnerFor, type AdminOptions } from "./admin-scope";
import { requireMatch } from "./field-format";

export const SLUG_PATTERN = /^[a-z0-9-]{1,63}$/;

export interface AccountRow {
  id: string;
  slug: string;
}

export function validateSlug(slug: string): string {
  return requireMatch("account slug", slug, SLUG_PATTERN, "use 1-63 characters of [a-z0-9-]");
}

/** Creates an account. A taken slug (even by a concurrent create) is `invalid_field`. */
export async function createAccount(slug: string, opts?: AdminOptions): Promise<AccountRow> {
  validateSlug(slug);
  return uniquely(`account ${slug} already exists`, () =>
    db().$transaction(async (tx) => {
      const account = await tx.account.create({
        data: { id: mintId("account"), slug },
        select: { id: true, slug: true },
      });
      await writeAudit(tx, {
        accountId: account.id,
        actor: actorOf(opts),
        event: AUDIT_EVENT.accountCreated,
        detail: { slug },
      });
      return account;
    }),
  );
}

/** The account with `slug`, or `404 not_found`. */
export async function findAccount(slug: string): Promise<AccountRow> {
  const account = await db().account.findUnique({ where: { slug }, select: { id: true, slug: true } });
  if (!account) throw new HubError("not_found", `account ${slug} not found`);
  return account;
}

/**
 * §16.4: whether the account's agents may list and read each other's sessions (`GET /v1/sessions`
 * with `scope: "account"`). Off by default; effective only beneath the deployment ceiling
 * `MA2H_SESSION_AGENT_LIST_VISIBILITY` (lib/sessions/read.ts applies both).
 */
export async function agentSessionVisibilityOf(accountId: string): Promise<boolean> {
  const row = await db().account.findUnique({ where: { id: accountId }, select: { agentSessionVisibility: true } });
  return row?.agentSessionVisibility === true;
}

/**
 * An owner switches the §16.4 grant (the web admin passes its role; the CLI, the operator, has full
 * authority). With `opts.accountId`, another account's slug is `404` like an unknown one. The change
 * is audited with the attested actor and both values; setting the current value changes and audits
 * nothing. The account row is locked, so two switches at once each read what the other wrote.
 */
export async function setAgentSessionVisibility(
  slug: string,
  enabled: unknown,
  opts?: AdminOptions,
): Promise<{ slug: string; enabled: boolean; changed: boolean }> {
  requireOwnerFor(opts, "change whether agents may list each other's sessions");
  if (typeof enabled !== "boolean")
    throw new HubError("validation_error", "agent session visibility: must be on or off");
  const account = await findAccount(slug);
  if (opts?.accountId && opts.accountId !== account.id) throw new HubError("not_found", `account ${slug} not found`);
  return db().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ agent_session_visibility: boolean }[]>`
      SELECT agent_session_visibility FROM accounts WHERE id = ${account.id} FOR UPDATE`;
    if (!row) throw new HubError("not_found", `account ${slug} not found`);
    if (row.agent_session_visibility === enabled) return { slug: account.slug, enabled, changed: false };
    const now = clock.now();
    await tx.account.update({ where: { id: account.id }, data: { agentSessionVisibility: enabled } });
    await writeAudit(tx, {
      accountId: account.id,
      actor: actorOf(opts),
      event: AUDIT_EVENT.accountSessionVisibilityChanged,
      detail: { from: row.agent_session_visibility, to: enabled },
      at: now,
    });
    return { slug: account.slug, enabled, changed: true };
  });
}
