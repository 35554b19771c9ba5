/**
 * next-auth (v4) configuration: the one module that imports next-auth. It adapts the Hub's own
 * sign-in rules (lib/web-auth) and revocable database sessions (lib/principals/web-sessions.ts) to
 * next-auth. The attested actor is later derived from the session's user and the message's
 * account — never from anything the browser sends.
 */
import type { NextAuthOptions } from "next-auth";
import type { Adapter, AdapterUser } from "next-auth/adapters";
import type { OAuthConfig } from "next-auth/providers/oauth";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { env, exportNextAuthSettings } from "../env";
import { log } from "../log";
import {
  bindIdentity,
  createWebSession,
  endWebSession,
  extendWebSession,
  humanForSessionToken,
  userByEmail,
  userById,
  userForIdentity,
} from "../principals/web-sessions";
import { issuerOf, providerSettings, type ProviderSetting } from "../web-auth/providers";
import { signInVerdict } from "../web-auth/sign-in";

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
    authorization: { params: { scope: "openid email profile" } },
    idToken: true,
    checks: ["pkce", "state"],
    allowDangerousEmailAccountLinking: true,
    profile: (q: Record<string, unknown>) => ({
      id: String(q.sub),
      email: q.email as string,
      name: (q.name as string) ?? null,
    }),
  };
}

function asAdapterUser(u: { id: string; email: string; name: string | null }): AdapterUser {
  return { id: u.id, email: u.email, name: u.name, emailVerified: null };
}

const adapter: Adapter = {
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

export function authOptions(): NextAuthOptions {
  const e = env();
  exportNextAuthSettings();
  return {
    adapter,
    secret: e.AUTH_SECRET,
    providers: providerSettings().map(nextAuthProvider),
    session: { strategy: "database", maxAge: SESSION_DAYS * 86_400 },
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
        });
        if (verdict.allowed) return true;
        log.warn("sign-in refused", { provider: account.provider, reason: verdict.reason });
        return "/signin?error=AccessDenied";
      },
      async session({ session, user }) {
        return { ...session, user: { id: user.id, email: user.email, name: user.name } } as typeof session;
      },
    },
  };
}
