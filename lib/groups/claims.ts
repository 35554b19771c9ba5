/**
 * Groups from the identity provider: an account maps values of the sign-in groups claim
 * (`MA2H_OIDC_GROUPS_CLAIM`) to its groups — a group's name for Keycloak and Okta, its object id for
 * Entra ID — and each sign-in brings the person's identity-provider memberships in step with the
 * claim (docs/groups.md). Only rows the claim made (`source: "idp"`) are added or removed by a
 * sign-in; a person an owner put in a group by hand stays. Explicit mappings only: a claim value no
 * mapping names changes nothing, so an identity provider can never create a group or reach a group
 * the account did not tie to it.
 */
import { db } from "../db";
import { clock } from "../clock";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit, type AuditRow } from "../audit/write";
import { uniquely } from "../db-errors";
import { actorOf, requireOwnerFor, type AdminOptions } from "../principals/admin-scope";
import { lockAccount } from "../principals/seat-locks";
import { groupNameOf } from "../principals/names";
import { lockedGroup } from "./groups";

/** The actor of the changes a sign-in makes: the claim, not the person signing in. */
export const IDP_SYNC_ACTOR = "system:idp-groups";
/** The longest claim value a mapping holds (Entra object ids are 36; names rarely pass 100). */
export const MAX_CLAIM_VALUE = 256;
/** The most claim values a sign-in reads (Entra stops at ~200 and sends an overage pointer). */
export const MAX_CLAIM_VALUES = 1000;

export function validateClaimValue(value: string): string {
  const v = value.trim();
  if (v.length === 0 || v.length > MAX_CLAIM_VALUE || /\p{Cc}/u.test(v))
    throw new HubError(
      "invalid_field",
      `a groups-claim value is 1-${MAX_CLAIM_VALUE} characters, no control characters`,
    );
  return v;
}

/** Maps a groups-claim value to a group (owners and the operator). */
export async function addGroupMapping(
  accountId: string,
  ref: string,
  value: string,
  opts?: AdminOptions,
): Promise<void> {
  requireOwnerFor(opts, "change groups");
  const name = groupNameOf(ref);
  const claimValue = validateClaimValue(value);
  await uniquely(`group ${name} is already mapped from ${JSON.stringify(claimValue)}`, () =>
    db().$transaction(async (tx) => {
      const groupId = (await lockedGroup(tx, accountId, name)).id;
      await tx.groupClaimMapping.create({
        data: { id: mintId("groupClaimMapping"), accountId, groupId, claimValue, createdAt: clock.now() },
      });
      await writeAudit(tx, {
        accountId,
        actor: actorOf(opts),
        event: AUDIT_EVENT.groupMappingAdded,
        detail: { group: name, claim_value: claimValue },
      });
    }),
  );
}

/** Removes a mapping. The members it brought stay until their next sign-in, which drops them. */
export async function removeGroupMapping(
  accountId: string,
  ref: string,
  value: string,
  opts?: AdminOptions,
): Promise<void> {
  requireOwnerFor(opts, "change groups");
  const name = groupNameOf(ref);
  const claimValue = validateClaimValue(value);
  await db().$transaction(async (tx) => {
    const groupId = (await lockedGroup(tx, accountId, name)).id;
    const gone = await tx.groupClaimMapping.deleteMany({ where: { groupId, claimValue } });
    if (gone.count === 0)
      throw new HubError("not_found", `group ${name} is not mapped from ${JSON.stringify(claimValue)}`);
    await writeAudit(tx, {
      accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.groupMappingRemoved,
      detail: { group: name, claim_value: claimValue },
    });
  });
}

/**
 * What a sign-in's groups claim says: its values, an overage (Entra's pointer in place of a list
 * past ~200 groups: nothing is changed, lib/web-auth/groups-claim.ts logs it), or no claim at all
 * (nothing configured, or a provider that sends none: nothing is changed either — a person whose
 * provider stopped sending the claim keeps the groups they had rather than silently losing them).
 */
export type GroupsClaim = { values: string[] } | { overage: true } | null;

export interface GroupSyncChange {
  accountId: string;
  group: string;
  handle: string;
  change: "added" | "removed";
}

/**
 * Brings the person's identity-provider group memberships in step with `values`, in every account
 * they sit in: for each group some mapping of that account ties to the claim, they are in it (from
 * the provider) exactly when one of its mapped values is in the claim. Manual rows are left alone.
 * Returns what changed; each change is audited in its account's trail.
 */
export async function syncGroupsFromClaim(userId: string, values: readonly string[]): Promise<GroupSyncChange[]> {
  const claimed = new Set(values.filter((v) => typeof v === "string").slice(0, MAX_CLAIM_VALUES));
  const seats = await db().membership.findMany({ where: { userId }, select: { accountId: true } });
  const changes: GroupSyncChange[] = [];
  for (const { accountId } of seats) {
    const done = await db().$transaction(async (tx) => {
      await lockAccount(tx, accountId);
      // Re-read the seat under the lock: a removal that committed first leaves nothing to sync.
      const seat = await tx.membership.findFirst({ where: { accountId, userId }, select: { id: true, handle: true } });
      if (!seat) return [];
      // The mapped groups, and any the claim put the person in before its mapping was removed.
      const mapped = await tx.accountGroup.findMany({
        where: {
          accountId,
          OR: [{ mappings: { some: {} } }, { members: { some: { membershipId: seat.id, source: "idp" } } }],
        },
        select: {
          id: true,
          name: true,
          mappings: { select: { claimValue: true } },
          members: { where: { membershipId: seat.id }, select: { source: true } },
        },
        orderBy: [{ name: "asc" }],
      });
      const out: GroupSyncChange[] = [];
      const audit: AuditRow[] = [];
      const now = clock.now();
      for (const g of mapped) {
        const wanted = g.mappings.some((m) => claimed.has(m.claimValue));
        const row = g.members[0];
        if (wanted && !row) {
          await tx.groupMember.create({
            data: { groupId: g.id, membershipId: seat.id, source: "idp", createdAt: now },
          });
          out.push({ accountId, group: g.name, handle: seat.handle, change: "added" });
        } else if (!wanted && row?.source === "idp") {
          await tx.groupMember.delete({ where: { groupId_membershipId: { groupId: g.id, membershipId: seat.id } } });
          out.push({ accountId, group: g.name, handle: seat.handle, change: "removed" });
        }
      }
      for (const c of out)
        audit.push({
          accountId,
          actor: IDP_SYNC_ACTOR,
          event: c.change === "added" ? AUDIT_EVENT.groupMemberAdded : AUDIT_EVENT.groupMemberRemoved,
          detail: { group: c.group, handle: c.handle, source: "idp" },
          at: now,
        });
      await writeAudit(tx, audit);
      return out;
    });
    changes.push(...done);
  }
  return changes;
}
