/**
 * `npm run dev:idp` — the local OpenID Connect provider for trying the inbox without a real identity
 * provider (the same one the Playwright tests run). Development only: refuses to start unless
 * MA2H_DEV_MODE=1, and listens on 127.0.0.1.
 *
 *   IDP_PORT                 port (default 4000)
 *   AUTH_OIDC_CLIENT_ID      client id (default ma2h-dev)
 *   AUTH_OIDC_CLIENT_SECRET  client secret (default ma2h-dev-secret)
 *   MA2H_PUBLIC_URL          the Hub's base URL, for the redirect URI (default http://127.0.0.1:$PORT)
 *   IDP_EMAIL_DOMAIN         domain for logins typed without @ (default acme.test)
 *
 * The login `mallory` is an identity whose email (mallory@<domain>) is NOT verified, for trying the
 * refusal; every other login is a verified `<login>@<domain>` (or the email typed).
 */
import { startDevIdp } from "./dev-idp-provider";

async function main(): Promise<void> {
  if (process.env.MA2H_DEV_MODE !== "1") {
    process.stderr.write("dev-idp: refusing to start: the development identity provider needs MA2H_DEV_MODE=1\n");
    process.exit(2);
  }
  const port = Number(process.env.IDP_PORT ?? 4000);
  const clientId = process.env.AUTH_OIDC_CLIENT_ID || "ma2h-dev";
  const clientSecret = process.env.AUTH_OIDC_CLIENT_SECRET || "ma2h-dev-secret";
  const hubUrl = (process.env.MA2H_PUBLIC_URL || `http://127.0.0.1:${process.env.PORT ?? 3000}`).replace(/\/+$/, "");
  const domain = process.env.IDP_EMAIL_DOMAIN || "acme.test";
  const redirect = `${hubUrl}/api/auth/callback/oidc`;

  const idp = await startDevIdp({
    port,
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirect] }],
    accounts: [{ login: "mallory", email: `mallory@${domain}`, email_verified: false }],
    emailDomain: domain,
  });
  process.stdout.write(
    [
      `dev-idp: OpenID provider at ${idp.issuer} (development only)`,
      `dev-idp: client ${clientId}, redirect URI ${redirect}`,
      "dev-idp: start the Hub with:",
      `  AUTH_OIDC_ISSUER=${idp.issuer} AUTH_OIDC_CLIENT_ID=${clientId} AUTH_OIDC_CLIENT_SECRET=${clientSecret} AUTH_OIDC_NAME="Dev IdP"`,
      `dev-idp: then open ${hubUrl}/signin and type a login (e.g. the email you added with ma2h-hub user add)`,
      "",
    ].join("\n"),
  );
  const stop = () => void idp.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: Error) => {
  process.stderr.write(`dev-idp: ${err.message}\n`);
  process.exit(1);
});
