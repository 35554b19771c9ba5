/**
 * Which claim of an OpenID Connect issuer says the sign-in email is the person's own — the one
 * condition under which a first sign-in may bind an identity to an invited person (sign-in.ts).
 * Pure: the claims in, a yes or no out.
 *
 * - `generic` (the standard, and Google): `email_verified`, OpenID Connect Core §5.1.
 * - `entra` (Microsoft Entra ID, MA2H_OIDC_KIND=entra): Entra sends no `email_verified` for work
 *   accounts; its optional claim `xms_edov` ("email domain owner verified") says the tenant that
 *   issued the token has verified the email's domain. Only that counts for an Entra issuer — an
 *   `email_verified` in an Entra token is not a claim Entra documents, so it is not taken.
 *
 * Both take the JSON boolean `true` only: a string "true", a 1 or an absent claim is no.
 * The email itself is the `email` claim and nothing else: `preferred_username` and `upn` are
 * sign-in names an Entra administrator may set to any address, verified or not, so they never
 * stand in for a missing `email` (lib/next/auth-options.ts reads `email` only).
 */
import type { OidcKind } from "../env";

export function oidcAssertsEmailVerified(kind: OidcKind, claims: Record<string, unknown> | undefined): boolean {
  if (!claims) return false;
  return kind === "entra" ? claims.xms_edov === true : claims.email_verified === true;
}
