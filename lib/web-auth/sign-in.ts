/**
 * Who may sign in. No open sign-up: a person gets in only if an owner/admin added their email, and
 * the first sign-in binds issuer + subject only when the provider asserts that email verified — to
 * that email's person, whoever is signed in on the browser. A person with an identity already
 * links another only while signed in as themselves. A person with no seat yet signs in only while
 * an invitation of theirs is live — to accept or decline it in the inbox. A bound identity whose
 * person holds neither a seat nor a live invitation is refused like an uninvited one.
 */
import { personForNewIdentity, userForIdentity } from "../principals/identities";
import { hasLiveInvitation } from "../principals/invitations";
import { hasAnySeat } from "../principals/seats";
import { issuerOf } from "./providers";

export type SignInVerdict =
  | { allowed: true }
  | { allowed: false; reason: "no_seat" | "not_invited" | "email_not_verified" };

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

export async function signInVerdict(a: SignInAttempt): Promise<SignInVerdict> {
  const bound = await userForIdentity(issuerOf(a.providerId), a.subject);
  if (bound)
    return (await hasAnySeat(bound)) || (await hasLiveInvitation(bound))
      ? { allowed: true }
      : { allowed: false, reason: "no_seat" };
  const verified = await emailVerified(a);
  if (await personForNewIdentity(a.email, verified, a.signedInAs)) return { allowed: true };
  return { allowed: false, reason: verified ? "not_invited" : "email_not_verified" };
}

/** Whether the provider asserts the sign-in email verified (GitHub: a verified primary email). */
async function emailVerified({ providerId, profile, accessToken, email }: SignInAttempt): Promise<boolean> {
  if (providerId !== "github") return profile?.email_verified === true;
  if (!accessToken || !email) return false;
  const res = await fetch("https://api.github.com/user/emails", {
    headers: { authorization: `Bearer ${accessToken}`, "user-agent": "MA2H-Hub" },
  });
  if (!res.ok) return false;
  const emails = (await res.json()) as Array<{ email: string; primary: boolean; verified: boolean }>;
  return emails.some((e) => e.primary && e.verified && e.email.toLowerCase() === email.toLowerCase());
}
