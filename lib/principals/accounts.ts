/** Accounts: the tenancy boundary every agent, membership and message belongs to. */
import { db, type Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { uniquely } from "../db-errors";
import { clock } from "../clock";
import { interAgentSettings } from "../env";
import { lockAccountIfAny } from "./accounts.sql";
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
export async function agentSessionVisibilityOf(accountId: string, q: Tx = db()): Promise<boolean> {
  const row = await q.account.findUnique({ where: { id: accountId }, select: { agentSessionVisibility: true } });
  return row?.agentSessionVisibility === true;
}

/** The per-account switches an owner flips (each a boolean column on `accounts`, audited as one kind). */
const ACCOUNT_SWITCHES = {
  agentSessionVisibility: {
    label: "agent session visibility",
    what: "change whether agents may list each other's sessions",
    event: AUDIT_EVENT.accountSessionVisibilityChanged,
  },
  interAgentEnabled: {
    label: "inter-agent messages",
    what: "turn inter-agent messages on or off",
    event: AUDIT_EVENT.accountInterAgentChanged,
  },
} as const;
type AccountSwitch = keyof typeof ACCOUNT_SWITCHES;

/**
 * An owner flips one account switch (the web admin passes its role; the CLI, the operator, has full
 * authority). With `opts.accountId`, another account's slug is `404` like an unknown one. The change
 * is audited with the attested actor and both values; setting the current value changes and audits
 * nothing. The account row is locked, so two switches at once each read what the other wrote.
 */
async function setAccountSwitch(
  which: AccountSwitch,
  slug: string,
  enabled: unknown,
  opts?: AdminOptions,
): Promise<{ slug: string; enabled: boolean; changed: boolean }> {
  const sw = ACCOUNT_SWITCHES[which];
  requireOwnerFor(opts, sw.what);
  if (typeof enabled !== "boolean") throw new HubError("validation_error", `${sw.label}: must be on or off`);
  const account = await findAccount(slug);
  if (opts?.accountId && opts.accountId !== account.id) throw new HubError("not_found", `account ${slug} not found`);
  return db().$transaction(async (tx) => {
    if (!(await lockAccountIfAny(tx, account.id))) throw new HubError("not_found", `account ${slug} not found`);
    const row = await tx.account.findUniqueOrThrow({
      where: { id: account.id },
      select: { agentSessionVisibility: true, interAgentEnabled: true },
    });
    const from = row[which];
    if (from === enabled) return { slug: account.slug, enabled, changed: false };
    const now = clock.now();
    await tx.account.update({ where: { id: account.id }, data: { [which]: enabled } });
    await writeAudit(tx, {
      accountId: account.id,
      actor: actorOf(opts),
      event: sw.event,
      detail: { from, to: enabled },
      at: now,
    });
    return { slug: account.slug, enabled, changed: true };
  });
}

/** An owner switches the §16.4 grant (setAccountSwitch: owner-only, locked, audited when it changes). */
export function setAgentSessionVisibility(
  slug: string,
  enabled: unknown,
  opts?: AdminOptions,
): Promise<{ slug: string; enabled: boolean; changed: boolean }> {
  return setAccountSwitch("agentSessionVisibility", slug, enabled, opts);
}

/**
 * §8.0: the inter-agent leg as this account has it. `optedIn` is the account's own switch (off by
 * default — "the leg is account-opt-in"); `ceiling` is the deployment's (`MA2H_INTER_AGENT`, choice
 * A14); the leg is open for the account only when both are on (`effective`).
 */
export async function interAgentStateOf(
  accountId: string,
  q: Tx = db(),
): Promise<{ optedIn: boolean; ceiling: boolean; effective: boolean }> {
  const row = await q.account.findUnique({ where: { id: accountId }, select: { interAgentEnabled: true } });
  const optedIn = row?.interAgentEnabled === true;
  const ceiling = interAgentSettings().enabled;
  return { optedIn, ceiling, effective: optedIn && ceiling };
}

/**
 * §8.0: whether the account's agents may address each other now — the deployment ceiling AND the
 * account's opt-in. A Hub MUST NOT accept `to`-addressed submits for an account for which this is false.
 */
export async function interAgentEnabledOf(accountId: string, q: Tx = db()): Promise<boolean> {
  return (await interAgentStateOf(accountId, q)).effective;
}

/**
 * §8.0: "enabling it is an explicit account-owner act" — only an owner (or the operator's CLI) opts
 * the account in or out; setAccountSwitch locks, audits `account.inter_agent_changed` and makes the
 * same value a no-op. The account's switch is stored whatever the ceiling says: it records the owner's
 * consent, which takes effect only while the deployment allows the leg (interAgentStateOf).
 */
export function setInterAgentEnabled(
  slug: string,
  enabled: unknown,
  opts?: AdminOptions,
): Promise<{ slug: string; enabled: boolean; changed: boolean }> {
  return setAccountSwitch("interAgentEnabled", slug, enabled, opts);
}
