/**
 * The sign-in providers this Hub offers, from the environment (each only when its variables are
 * set), and the issuer each one asserts identities for. The next-auth objects built from these live
 * in lib/next/auth-options.ts.
 */
import { type OidcClaimSettings, signInProviderSettings } from "../env";

export type ProviderId = "oidc" | "github" | "google";

export interface ProviderSetting {
  id: ProviderId;
  /** The issuer of the provider's subjects: an identity is bound as issuer + subject. */
  issuer: string;
  name: string;
  clientId: string;
  clientSecret: string;
  /** The OIDC provider's only: its kind, groups claim and scopes (MA2H_OIDC_*). */
  oidc?: OidcClaimSettings;
}

export function providerSettings(): ProviderSetting[] {
  const s = signInProviderSettings();
  const out: ProviderSetting[] = [];
  if (s.oidc) {
    const { kind, groupsClaim, scope, ...client } = s.oidc;
    out.push({ id: "oidc", ...client, oidc: { kind, groupsClaim, scope } });
  }
  if (s.github) out.push({ id: "github", issuer: "https://github.com", name: "GitHub", ...s.github });
  if (s.google) out.push({ id: "google", issuer: "https://accounts.google.com", name: "Google", ...s.google });
  return out;
}

/** The providers a sign-in page may offer (id and display name only). */
export function configuredProviders(): Array<{ id: string; name: string }> {
  return providerSettings().map((d) => ({ id: d.id, name: d.name }));
}

export function issuerOf(providerId: string): string {
  const def = providerSettings().find((d) => d.id === providerId);
  if (!def) throw new Error(`unknown provider ${providerId}`);
  return def.issuer;
}

/** The OIDC provider's claim settings; null when no OIDC provider is configured. */
export function oidcClaimSettings(): OidcClaimSettings | null {
  return providerSettings().find((d) => d.id === "oidc")?.oidc ?? null;
}
