import { configuredProviders } from "@/lib/web-auth/providers";
import { SignInButton } from "./sign-in-button";

export const dynamic = "force-dynamic";

const ERRORS: Record<string, string> = {
  AccessDenied:
    "This identity is not invited to any account here, or its email is not verified. Ask an owner or admin to add you.",
  OAuthCallback: "The identity provider did not complete the sign-in. Try again.",
  Callback: "The sign-in could not be completed. Try again, or ask an administrator to look at the Hub's log.",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const params = await searchParams;
  const providers = configuredProviders();
  const callbackUrl = params.callbackUrl?.startsWith("/") ? params.callbackUrl : "/inbox";
  return (
    <main style={{ maxWidth: 420, margin: "10vh auto" }}>
      <h1>Sign in to MA2H Hub</h1>
      {params.error && (
        <p role="alert" data-testid="signin-error">
          {ERRORS[params.error] ?? "Sign-in failed."}
        </p>
      )}
      {providers.length === 0 ? (
        <p data-testid="no-provider">
          No sign-in provider is configured. Set <code>AUTH_OIDC_ISSUER</code>, <code>AUTH_OIDC_CLIENT_ID</code> and{" "}
          <code>AUTH_OIDC_CLIENT_SECRET</code> (or GitHub / Google credentials) — see the README, “Signing in”.
        </p>
      ) : (
        providers.map((p) => <SignInButton key={p.id} id={p.id} name={p.name} callbackUrl={callbackUrl} />)
      )}
    </main>
  );
}
