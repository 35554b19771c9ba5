/**
 * next-auth (v4) configuration: the one module that imports next-auth. It adapts the Hub's own
 * sign-in rules (lib/web-auth), identities (lib/principals/identities.ts) and revocable database
 * sessions (lib/principals/web-sessions.ts) to next-auth. The attested actor is later derived from
 * the session's user and the message's account — never from anything the browser sends.
 *
 * A sign-in never binds an identity to the browser's current session. next-auth's callback
 * would link a new identity to whoever is signed in, so on the callback the adapter does not show it
 * the current session at all: the identity goes to its own person (the bound one, or the invited
 * person with that verified email — lib/web-auth/sign-in.ts decides who may), a fresh session is
 * created for them, its cookie replaces the old one, and the old session is ended. The old session
 * matters in one place only: it lets a signed-in person link a second identity to themselves.
 *
 * The signIn callback is also where an allowed OIDC sign-in applies the groups claim
 * (MA2H_OIDC_GROUPS_CLAIM): there next-auth hands over the ID token's claims as they came, where
 * `events.signIn` has only the profile below, which keeps `id`, `email` and `name`.
 */
import type { NextAuthOptions } from "next-auth";
import type { Adapter, AdapterUser } from "next-auth/adapters";
import type { OAuthConfig } from "next-auth/providers/oauth";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { env, exportNextAuthSettings, servesHttpsOnly } from "../env";
import { log } from "../log";
import { bindIdentity, recordSignIn, userForIdentity } from "../principals/identities";
import {
  createWebSession,
  endWebSession,
  extendWebSession,
  humanForSessionToken,
  userByEmail,
  userById,
} from "../principals/web-sessions";
import { issuerOf, providerSettings, type ProviderSetting } from "../web-auth/providers";
import { signInVerdict, syncGroupsAtSignIn } from "../web-auth/sign-in";

const SESSION_DAYS = 7;

function nextAuthProvider(p: ProviderSetting): OAuthConfig<Record<string, unknown>> {
  // Linking by email is guarded by the signIn callback below (lib/web-auth/sign-in.ts).
  const { clientId, clientSecret } = p;
  if (p.id === "github")
    return GitHubProvider({ clientId, clientSecret, allowDangerousEmailAccountLinking: true }) as never;
  if (p.id === "google")
    return GoogleProvider({ clientId, clientSecret, allowDangerousEmailAccountLinking: true }) as never;
  return {
    id: "oidc",
    name: p.name,
    type: "oauth",
    wellKnown: `${p.issuer}/.well-known/openid-configuration`,
    clientId,
    clientSecret,
    authorization: { params: { scope: p.oidc?.scope ?? "openid email profile" } },
    // The profile is the ID token's claims (next-auth reads `tokens.claims()`, not userinfo): the
    // sign-in rule and the groups claim read them there (lib/web-auth/sign-in.ts).
    idToken: true,
    checks: ["pkce", "state"],
    allowDangerousEmailAccountLinking: true,
    // `email` only, never `preferred_username` or `upn` (lib/web-auth/verified-email.ts).
    profile: (q: Record<string, unknown>) => ({
      id: String(q.sub),
      email: typeof q.email === "string" ? q.email : null,
      name: (q.name as string) ?? null,
    }),
  };
}

function asAdapterUser(u: { id: string; email: string; name: string | null }): AdapterUser {
  return { id: u.id, email: u.email, name: u.name, emailVerified: null };
}

/**
 * The adapter. `signingIn`: this request is a provider's callback, where the current session must
 * not take part (see the header) — `getSessionAndUser` answers "no session" so next-auth neither
 * links to it nor refuses a bound identity of someone else; every other route reads sessions as usual.
 */
function adapterFor(signingIn: boolean): Adapter {
  return {
    createUser: async () => {
      throw new Error("open sign-up is disabled: an owner or admin adds people first");
    },
    getUser: async (id) => {
      const u = await userById(id);
      return u ? asAdapterUser(u) : null;
    },
    getUserByEmail: async (email) => {
      const u = await userByEmail(email);
      return u ? asAdapterUser(u) : null;
    },
    getUserByAccount: async ({ provider, providerAccountId }) => {
      const id = await userForIdentity(issuerOf(provider), providerAccountId);
      const u = id ? await userById(id) : null;
      return u ? asAdapterUser(u) : null;
    },
    updateUser: async (user) => {
      const u = await userById(user.id);
      if (!u) throw new Error("no such user");
      return asAdapterUser(u);
    },
    linkAccount: async (account: { userId: string; provider: string; providerAccountId: string }) => {
      await bindIdentity(account.userId, account.provider, issuerOf(account.provider), account.providerAccountId);
    },
    createSession: async ({ sessionToken, userId, expires }) => {
      await createWebSession(userId, sessionToken, expires);
      return { sessionToken, userId, expires };
    },
    getSessionAndUser: async (sessionToken) => {
      if (signingIn) return null;
      const human = await humanForSessionToken(sessionToken);
      if (!human) return null;
      return {
        session: { sessionToken, userId: human.userId, expires: human.expiresAt },
        user: asAdapterUser({ id: human.userId, email: human.email, name: human.name }),
      };
    },
    updateSession: async ({ sessionToken, expires }) => {
      if (expires) await extendWebSession(sessionToken, expires);
      return null;
    },
    deleteSession: async (sessionToken) => {
      await endWebSession(sessionToken);
    },
  };
}

/** What the auth route knows about the request before next-auth handles it. */
export interface AuthRequest {
  /** The route's action is a provider's callback (`/api/auth/callback/<provider>`). */
  callback: boolean;
  /** The browser's session cookie as it arrived, if any. */
  priorSessionToken?: string;
}

export function authOptions(request: AuthRequest = { callback: false }): NextAuthOptions {
  const e = env();
  exportNextAuthSettings();
  const prior = request.callback ? request.priorSessionToken : undefined;
  return {
    adapter: adapterFor(request.callback),
    secret: e.AUTH_SECRET,
    providers: providerSettings().map(nextAuthProvider),
    session: { strategy: "database", maxAge: SESSION_DAYS * 86_400 },
    // Over HTTPS only (TLS or trusted-proxy mode) the cookies carry the `__Secure-` prefix whatever
    // MA2H_PUBLIC_URL says, since only that name is read there (lib/principals/web-sessions.ts).
    useSecureCookies: servesHttpsOnly(),
    pages: { signIn: "/signin", error: "/signin" },
    callbacks: {
      async signIn({ account, profile, user }) {
        if (!account) return false;
        const verdict = await signInVerdict({
          providerId: account.provider,
          subject: account.providerAccountId,
          email: user.email,
          profile: profile as Record<string, unknown> | undefined,
          accessToken: account.access_token,
          signedInAs: (await humanForSessionToken(prior))?.userId ?? null,
        });
        if (!verdict.allowed) {
          log.warn("sign-in refused", { provider: account.provider, reason: verdict.reason });
          return "/signin?error=AccessDenied";
        }
        // Before the session exists: a sign-in whose group sync fails is refused, so a person the
        // identity provider took out of a group never keeps its rights because a write failed.
        try {
          await syncGroupsAtSignIn(account.provider, verdict.userId, profile as Record<string, unknown> | undefined);
        } catch (err) {
          log.error("sign-in refused: the groups claim could not be applied", {
            provider: account.provider,
            user_id: verdict.userId,
            error: err as Error,
          });
          return "/signin?error=Callback";
        }
        return true;
      },
      async session({ session, user }) {
        return { ...session, user: { id: user.id, email: user.email, name: user.name } } as typeof session;
      },
    },
    events: {
      // After the fresh session is made: its cookie replaces the old one, so the old session ends.
      async signIn({ account }) {
        if (prior) await endWebSession(prior);
        if (account) await recordSignIn(issuerOf(account.provider), account.providerAccountId);
      },
    },
  };
}
