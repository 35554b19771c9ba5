/**
 * Reading the groups claim (MA2H_OIDC_GROUPS_CLAIM) out of a sign-in's ID token claims. Pure: what
 * the claim says decides whether the sign-in changes the person's identity-provider group
 * memberships (lib/groups/claims.ts `syncGroupsFromClaim`) — and only a plain list of strings does.
 *
 * - a JSON array of strings: those values (an empty array is a person in no group);
 * - Entra ID's overage — past about 200 groups its ID token carries, instead of the claim, a pointer
 *   (`_claim_names.<claim>` naming a source in `_claim_sources`, OpenID Connect Core §5.6.2): the
 *   list is not in the token, so nothing is changed rather than every membership dropped; the same
 *   for a list longer than MAX_CLAIM_VALUES, which would be read only in part;
 * - no claim, or anything else (a single string, numbers, an object): nothing is changed. A provider
 *   that stops sending the claim leaves people in the groups they had rather than silently taking
 *   them out (lib/groups/claims.ts `GroupsClaim`).
 */
import { MAX_CLAIM_VALUES } from "../groups/claims";

export type GroupsClaimReading =
  | { kind: "values"; values: string[] }
  | { kind: "overage" }
  | { kind: "too_many"; count: number }
  | { kind: "absent" }
  | { kind: "malformed" };

const own = (o: object, key: string): boolean => Object.hasOwn(o, key);

export function readGroupsClaim(claims: Record<string, unknown> | undefined, claimName: string): GroupsClaimReading {
  if (!claims) return { kind: "absent" };
  // The pointer wins even beside an inline list: the provider says the full list is elsewhere.
  const pointers = claims._claim_names;
  if (pointers && typeof pointers === "object" && !Array.isArray(pointers) && own(pointers, claimName))
    return { kind: "overage" };
  if (!own(claims, claimName) || claims[claimName] === undefined || claims[claimName] === null)
    return { kind: "absent" };
  const value = claims[claimName];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) return { kind: "malformed" };
  if (value.length > MAX_CLAIM_VALUES) return { kind: "too_many", count: value.length };
  return { kind: "values", values: value as string[] };
}
