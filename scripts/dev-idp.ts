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
 *   IDP_ENTRA                `1`: logins play Microsoft Entra ID work accounts — `xms_edov: true`
 *                            and no `email_verified` (for a Hub with MA2H_OIDC_KIND=entra)
 *   IDP_GROUPS               groups claims, e.g. `alice=platform,oncall;bob=platform` (a Hub with
 *                            MA2H_OIDC_GROUPS_CLAIM=groups and MA2H_OIDC_EXTRA_SCOPES=groups)
 *
 * The login `mallory` is an identity whose email (mallory@<domain>) is NOT verified, for trying the
 * refusal; every other login is a verified `<login>@<domain>` (or the email typed).
 */
import { type DevIdpAccount, startDevIdp } from "./dev-idp-provider";

/** `alice=platform,oncall;bob=platform` → login → groups. */
function parseGroups(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const entry of text
    .split(";")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [login, list] = entry.split("=", 2);
    if (!login?.trim() || list === undefined) throw new Error(`IDP_GROUPS: "${entry}" is not login=group,group`);
    out.set(
      login.trim().toLowerCase(),
      list
        .split(",")
        .map((g) => g.trim())
        .filter(Boolean),
    );
  }
  return out;
}

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
  const entra = process.env.IDP_ENTRA === "1";
  const verified: Pick<DevIdpAccount, "email_verified" | "xms_edov"> = entra
    ? { email_verified: null, xms_edov: true }
    : { email_verified: true };
  const accounts: DevIdpAccount[] = [
    // Unverified either way: Entra-style it has no xms_edov (a domain the tenant has not verified).
    { login: "mallory", email: `mallory@${domain}`, email_verified: entra ? null : false },
  ];
  for (const [login, groups] of parseGroups(process.env.IDP_GROUPS ?? ""))
    accounts.push({ login, email: login.includes("@") ? login : `${login}@${domain}`, ...verified, groups });

  const idp = await startDevIdp({
    port,
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirect] }],
    accounts,
    emailDomain: domain,
    entraStyle: entra,
  });
  process.stdout.write(
    [
      `dev-idp: OpenID provider at ${idp.issuer} (development only)`,
      `dev-idp: client ${clientId}, redirect URI ${redirect}${entra ? " (Entra-style accounts)" : ""}`,
      "dev-idp: start the Hub with:",
      `  AUTH_OIDC_ISSUER=${idp.issuer} AUTH_OIDC_CLIENT_ID=${clientId} AUTH_OIDC_CLIENT_SECRET=${clientSecret} AUTH_OIDC_NAME="Dev IdP"${entra ? " MA2H_OIDC_KIND=entra" : ""}${process.env.IDP_GROUPS ? " MA2H_OIDC_GROUPS_CLAIM=groups MA2H_OIDC_EXTRA_SCOPES=groups" : ""}`,
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
