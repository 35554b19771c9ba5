/** Accounts: the tenancy boundary every agent, membership and message belongs to. */
import { db } from "../db";
import { HubError } from "../protocol/errors";
import { mintId } from "../protocol/ids";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { uniquely } from "../db-errors";
import { actorOf, type AdminOptions } from "./admin-scope";
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
