/**
 * Who may sign in. No open sign-up: a person gets in only if an owner/admin added their email, and
 * the first sign-in binds issuer + subject only when the provider asserts that email verified — to
 * that email's person, whoever is signed in on the browser. A person with an identity already
 * links another only while signed in as themselves. A person with no seat yet signs in only while
 * an invitation of theirs is live — to accept or decline it in the inbox. A bound identity whose
 * person holds neither a seat nor a live invitation is refused like an uninvited one.
 *
 * Which claim asserts the email verified depends on the issuer (verified-email.ts: Microsoft Entra
 * ID's `xms_edov` when MA2H_OIDC_KIND=entra). Each allowed sign-in through the OIDC provider then
 * brings the person's identity-provider groups in step with the groups claim (groups-claim.ts).
 */
import { syncGroupsFromClaim } from "../groups/claims";
import { log } from "../log";
import { personForNewIdentity, userForIdentity } from "../principals/identities";
import { hasLiveInvitation } from "../principals/invitations";
import { hasAnySeat } from "../principals/seats";
import { readGroupsClaim } from "./groups-claim";
import { issuerOf, oidcClaimSettings } from "./providers";
import { oidcAssertsEmailVerified } from "./verified-email";

export type SignInVerdict =
  | { allowed: true; userId: string }
  | { allowed: false; reason: "no_seat" | "not_invited" | "no_email" | "email_not_verified" };

export interface SignInAttempt {
  providerId: string;
  subject: string;
  email: string | null | undefined;
  /** The provider's profile claims (OpenID: `email_verified`). */
  profile: Record<string, unknown> | undefined;
  accessToken: string | undefined;
  /** The person the browser's current session belongs to, if any: it may only permit a link to itself. */
  signedInAs: string | null;
}

/** Who may sign in; when allowed, the person the sign-in is for (bound, or to be bound). */
export async function signInVerdict(a: SignInAttempt): Promise<SignInVerdict> {
  const bound = await userForIdentity(issuerOf(a.providerId), a.subject);
  if (bound)
    return (await hasAnySeat(bound)) || (await hasLiveInvitation(bound))
      ? { allowed: true, userId: bound }
      : { allowed: false, reason: "no_seat" };
  // No email claim (an Entra app registration without the `email` optional claim): nothing to
  // bind by. Never a fallback to another claim — see verified-email.ts.
  if (!a.email) return { allowed: false, reason: "no_email" };
  const verified = await emailVerified(a);
  const person = await personForNewIdentity(a.email, verified, a.signedInAs);
  if (person) return { allowed: true, userId: person };
  return { allowed: false, reason: verified ? "not_invited" : "email_not_verified" };
}

/**
 * Whether the provider asserts the sign-in email verified: the OIDC provider by its kind
 * (verified-email.ts), Google by `email_verified`, GitHub by a verified primary email.
 */
async function emailVerified({ providerId, profile, accessToken, email }: SignInAttempt): Promise<boolean> {
  if (providerId === "oidc") return oidcAssertsEmailVerified(oidcClaimSettings()?.kind ?? "generic", profile);
  if (providerId !== "github") return oidcAssertsEmailVerified("generic", profile);
  if (!accessToken || !email) return false;
  const res = await fetch("https://api.github.com/user/emails", {
    headers: { authorization: `Bearer ${accessToken}`, "user-agent": "MA2H-Hub" },
  });
  if (!res.ok) return false;
  const emails = (await res.json()) as Array<{ email: string; primary: boolean; verified: boolean }>;
  return emails.some((e) => e.primary && e.verified && e.email.toLowerCase() === email.toLowerCase());
}

/**
 * At an allowed sign-in through the OIDC provider, with MA2H_OIDC_GROUPS_CLAIM set: the person's
 * identity-provider group memberships follow the claim in every account they sit in
 * (lib/groups/claims.ts). An overage or an unreadable claim changes nothing and is logged — with the
 * person's id only, never the claims or the token. GitHub and Google send no groups claim.
 */
export async function syncGroupsAtSignIn(
  providerId: string,
  userId: string,
  claims: Record<string, unknown> | undefined,
): Promise<void> {
  if (providerId !== "oidc") return;
  const claimName = oidcClaimSettings()?.groupsClaim;
  if (!claimName) return;
  const reading = readGroupsClaim(claims, claimName);
  switch (reading.kind) {
    case "values": {
      const changes = await syncGroupsFromClaim(userId, reading.values);
      if (changes.length > 0)
        log.info("sign-in: groups from the identity provider changed", {
          user_id: userId,
          added: changes.filter((c) => c.change === "added").length,
          removed: changes.filter((c) => c.change === "removed").length,
        });
      return;
    }
    case "overage":
      log.warn(
        "sign-in: the groups claim is an overage pointer (over ~200 groups), not a list; groups unchanged — " +
          "limit the claim to the groups assigned to the application",
        { user_id: userId, claim: claimName },
      );
      return;
    case "too_many":
      log.warn("sign-in: the groups claim lists too many values to read; groups unchanged", {
        user_id: userId,
        claim: claimName,
        count: reading.count,
      });
      return;
    case "absent":
      log.info("sign-in: no groups claim in the ID token; groups unchanged", { user_id: userId, claim: claimName });
      return;
    case "malformed":
      log.info("sign-in: the groups claim is not a list of strings; groups unchanged", {
        user_id: userId,
        claim: claimName,
      });
      return;
  }
}
