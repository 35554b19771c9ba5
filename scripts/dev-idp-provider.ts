/**
 * A local OpenID Connect provider for development and the end-to-end tests (oidc-provider 9). It has
 * real login and consent pages of its own — no passwords: you type a login, and the account's email is
 * that login if it contains `@`, else `<login>@<emailDomain>`. Configured accounts override that (a
 * fixed `sub`, or `email_verified: false` to play an unverified identity). The `sub` of an
 * unconfigured login is derived from its email, so `alice` and `alice@acme.test` are one identity.
 *
 * An account may also play a Microsoft Entra ID work account — no `email_verified` (`null`), and
 * the optional claim `xms_edov` — and carry a `groups` claim (released with the `groups` scope), or
 * Entra's overage pointer in its place. `updateAccount` changes an account between sign-ins, as an
 * administrator changing someone's groups would.
 *
 * Development only: it refuses to start unless MA2H_DEV_MODE=1 and binds only to a loopback address.
 * `npm run dev:idp` (scripts/dev-idp.ts) and the Playwright global setup both call `startDevIdp`.
 */
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type InteractionDetails } from "oidc-provider";

export interface DevIdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface DevIdpAccount {
  /** What the person types on the login page (compared case-insensitively). */
  login: string;
  email: string;
  /** Default `true`; `null` leaves the claim out, as Entra ID does for work accounts. */
  email_verified?: boolean | null;
  /** Entra ID's optional claim "email domain owner verified"; issued only when set. */
  xms_edov?: boolean;
  /** Issued as the `groups` claim when the client asks for the `groups` scope. */
  groups?: string[];
  /** Entra ID's overage: `_claim_names.groups` pointing into `_claim_sources` instead of `groups`. */
  groupsOverage?: boolean;
  name?: string;
  /** Defaults to one derived from the email. */
  sub?: string;
}

/** What `updateAccount` may change of a configured account. */
export type DevIdpAccountChange = Partial<
  Pick<DevIdpAccount, "email_verified" | "xms_edov" | "groups" | "groupsOverage">
>;

export interface DevIdpOptions {
  port?: number;
  host?: string;
  clients: DevIdpClient[];
  accounts?: DevIdpAccount[];
  /** Domain for logins typed without `@`. */
  emailDomain?: string;
  /** Whether a login that is not in `accounts` gets a verified `<login>@<emailDomain>` account. */
  allowUnknownLogins?: boolean;
  /** Such a login plays an Entra ID work account: `xms_edov: true` and no `email_verified`. */
  entraStyle?: boolean;
  /** Where provider errors go (default: stderr). */
  log?: (line: string) => void;
}

export interface DevIdp {
  issuer: string;
  port: number;
  /** Changes a configured account's claims; its next sign-in carries them. */
  updateAccount(login: string, change: DevIdpAccountChange): void;
  stop(): Promise<void>;
}

interface Claims {
  sub: string;
  email: string;
  email_verified: boolean | null;
  xms_edov?: boolean;
  groups?: string[];
  groupsOverage?: boolean;
  name: string;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

export function subjectFor(email: string): string {
  return `dev-${createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 20)}`;
}

/** The claims the provider may release (oidc-provider filters them by the granted scopes). */
function issuedClaims(c: Claims): Record<string, unknown> {
  const out: Record<string, unknown> = { sub: c.sub, email: c.email, name: c.name };
  if (c.email_verified !== null) out.email_verified = c.email_verified;
  if (c.xms_edov !== undefined) out.xms_edov = c.xms_edov;
  if (c.groupsOverage) {
    // Entra's shape: the claim's name points at a source where the full list would be fetched.
    out._claim_names = { groups: "src1" };
    out._claim_sources = { src1: { endpoint: `https://graph.invalid/v1.0/users/${c.sub}/getMemberObjects` } };
  } else if (c.groups) out.groups = [...c.groups];
  return out;
}

function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

function page(title: string, inner: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:10vh auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}input{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box;margin:.3rem 0 1rem}
button{font-size:1rem;padding:.5rem 1rem}.note{color:#666;font-size:.9rem}ul{padding-left:1.2rem}
</style></head><body><p class="note">MA2H development identity provider — not for production</p>${inner}</body></html>`;
}

function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  return new Promise((ok, fail) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => {
      raw += d;
      if (raw.length > 16_384) req.destroy(new Error("form too large"));
    });
    req.on("end", () => ok(new URLSearchParams(raw)));
    req.on("error", fail);
  });
}

function send(res: http.ServerResponse, status: number, html: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(html);
}

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  if (process.env.MA2H_DEV_MODE !== "1") {
    throw new Error("the development identity provider runs only with MA2H_DEV_MODE=1");
  }
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) throw new Error(`the development identity provider binds only to loopback, not ${host}`);
  const emailDomain = options.emailDomain ?? "acme.test";
  const allowUnknown = options.allowUnknownLogins ?? true;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  // Accounts by login and by subject; unconfigured logins are added on first use.
  const byLogin = new Map<string, Claims>();
  const bySub = new Map<string, Claims>();
  const remember = (login: string, c: Claims) => {
    byLogin.set(login.toLowerCase(), c);
    bySub.set(c.sub, c);
  };
  for (const a of options.accounts ?? []) {
    remember(a.login, {
      sub: a.sub ?? subjectFor(a.email),
      email: a.email,
      email_verified: a.email_verified === undefined ? true : a.email_verified,
      xms_edov: a.xms_edov,
      groups: a.groups,
      groupsOverage: a.groupsOverage,
      name: a.name ?? a.login,
    });
  }
  const accountFor = (rawLogin: string): Claims | null => {
    const login = rawLogin.trim().toLowerCase();
    if (!login || login.length > 254 || /\s/.test(login)) return null;
    const known = byLogin.get(login);
    if (known) return known;
    if (!allowUnknown) return null;
    const email = login.includes("@") ? login : `${login}@${emailDomain}`;
    const claims: Claims = options.entraStyle
      ? { sub: subjectFor(email), email, email_verified: null, xms_edov: true, name: login.split("@")[0] as string }
      : { sub: subjectFor(email), email, email_verified: true, name: login.split("@")[0] as string };
    remember(login, claims);
    return claims;
  };

  let provider: Provider | undefined;
  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err: Error) => {
      log(`dev-idp: ${err.name}: ${err.message}`);
      if (!res.headersSent)
        send(res, 400, page("Error", `<h1>Sign-in could not continue</h1><p>${esc(err.message)}</p>`));
      else res.end();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!provider) return send(res, 503, "starting");
    const path = new URL(req.url ?? "/", "http://idp.invalid").pathname;
    const m = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|consent|abort))?$/.exec(path);
    if (!m) return provider.callback()(req, res);
    const [, uid, step] = m;
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error("interaction mismatch");
    const client = await provider.Client.find(details.params.client_id);
    const clientName = client?.clientName ?? details.params.client_id;

    if (step === undefined && req.method === "GET") {
      return send(
        res,
        200,
        details.prompt.name === "login" ? loginPage(details, clientName) : consentPage(details, clientName),
      );
    }
    if (step === "abort") {
      return provider.interactionFinished(
        req,
        res,
        { error: "access_denied", error_description: "The person cancelled the sign-in" },
        { mergeWithLastSubmission: false },
      );
    }
    if (req.method !== "POST") return send(res, 405, page("Error", "<h1>Method not allowed</h1>"));

    if (step === "login") {
      if (details.prompt.name !== "login") throw new Error("this interaction is not asking for a login");
      const form = await readForm(req);
      const account = accountFor(form.get("login") ?? "");
      if (!account) return send(res, 200, loginPage(details, clientName, "Unknown login."));
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: account.sub } },
        { mergeWithLastSubmission: false },
      );
    }

    // consent
    if (details.prompt.name !== "consent") throw new Error("this interaction is not asking for consent");
    const accountId = details.session?.accountId;
    if (!accountId) throw new Error("no signed-in account");
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId, clientId: details.params.client_id });
    if (!grant) throw new Error("grant not found");
    const d = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(" "));
    if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(d.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, scopes.join(" "));
    const grantId = await grant.save();
    return provider.interactionFinished(
      req,
      res,
      { consent: details.grantId ? {} : { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  function loginPage(details: InteractionDetails, clientName: string, error?: string): string {
    return page(
      "Sign in",
      `<h1>Sign in to continue to ${esc(clientName)}</h1>
${error ? `<p role="alert">${esc(error)}</p>` : ""}
<form method="post" action="/interaction/${esc(details.uid)}/login" autocomplete="off">
<label for="login">Login (a name, or an email address)</label>
<input id="login" name="login" required autofocus placeholder="alice or alice@${esc(emailDomain)}">
<button type="submit">Sign in</button>
</form>
<p class="note">No password: any login is accepted. A name without @ becomes name@${esc(emailDomain)}.</p>
<p><a href="/interaction/${esc(details.uid)}/abort">Cancel</a></p>`,
    );
  }

  function consentPage(details: InteractionDetails, clientName: string): string {
    const claims = details.session?.accountId ? bySub.get(details.session.accountId) : undefined;
    const scopes = String(details.params.scope ?? "")
      .split(" ")
      .filter(Boolean);
    return page(
      "Allow access",
      `<h1>${esc(clientName)} wants to know who you are</h1>
<p>Signed in as <strong>${esc(claims?.email ?? details.session?.accountId ?? "?")}</strong>${claims && !claims.email_verified && !claims.xms_edov ? " (email not verified)" : ""}.</p>
<p>It asks for:</p><ul>${scopes.map((s) => `<li>${esc(s)}</li>`).join("")}</ul>
<form method="post" action="/interaction/${esc(details.uid)}/consent"><button type="submit" autofocus>Allow</button></form>
<p><a href="/interaction/${esc(details.uid)}/abort">Cancel</a></p>`,
    );
  }

  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, host, () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  provider = new Provider(issuer, {
    clients: options.clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      client_name: "MA2H Hub",
      redirect_uris: c.redirect_uris,
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    })),
    jwks: { keys: [{ ...signingKey, use: "sig", alg: "RS256", kid: `dev-${port}` }] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    pkce: { required: () => false },
    // Put the scope's claims into the ID token too: next-auth v4 reads the profile from it.
    conformIdTokenClaims: false,
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified", "xms_edov"],
      profile: ["name"],
      groups: ["groups"],
    },
    scopes: ["openid", "email", "profile", "groups"],
    features: { devInteractions: { enabled: false } },
    ttl: {
      Interaction: 3600,
      Session: 14 * 86_400,
      Grant: 14 * 86_400,
      AuthorizationCode: 600,
      AccessToken: 3600,
      IdToken: 3600,
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => {
      const c = bySub.get(sub);
      if (!c) return undefined;
      return { accountId: sub, claims: async () => issuedClaims(c) };
    },
  });
  provider.on("server_error", (_ctx: unknown, err: unknown) => log(`dev-idp server_error: ${(err as Error)?.message}`));

  return {
    issuer,
    port,
    updateAccount(login, change) {
      const c = byLogin.get(login.toLowerCase());
      if (!c) throw new Error(`no configured account ${login}`);
      Object.assign(c, change);
    },
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
