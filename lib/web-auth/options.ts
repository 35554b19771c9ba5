/**
 * next-auth (v4) configuration: the one lib/ module that imports next-auth. Providers come from the
 * environment (each enabled only when its variables are set); sessions live in our own database
 * (lib/principals/web-sessions.ts) so they are revocable. No open sign-up: a person gets in only if
 * an owner/admin added their email, and the first sign-in binds issuer + subject only when the
 * provider asserts that email verified. The attested actor is later derived from the session's
 * user and the message's account — never from anything the browser sends.
 */
import type { NextAuthOptions } from "next-auth";
import type { Adapter, AdapterUser } from "next-auth/adapters";
import type { OAuthConfig } from "next-auth/providers/oauth";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { env } from "../env";
import { log } from "../log";
import {
  bindIdentity,
  createWebSession,
  endWebSession,
  extendWebSession,
  hasAnySeat,
  humanForSessionToken,
  invitedUserForFirstSignIn,
  userByEmail,
  userById,
  userForIdentity,
} from "../principals/web-sessions";

const SESSION_DAYS = 7;

type ProviderDef = { id: string; issuer: string; provider: OAuthConfig<Record<string, unknown>> };

function providerDefs(): ProviderDef[] {
  const out: ProviderDef[] = [];
  const oidcIssuer = process.env.AUTH_OIDC_ISSUER?.replace(/\/+$/, "");
  if (oidcIssuer && process.env.AUTH_OIDC_CLIENT_ID && process.env.AUTH_OIDC_CLIENT_SECRET) {
    out.push({
      id: "oidc",
      issuer: oidcIssuer,
      provider: {
        id: "oidc",
        name: process.env.AUTH_OIDC_NAME || "Single sign-on",
        type: "oauth",
        wellKnown: `${oidcIssuer}/.well-known/openid-configuration`,
        clientId: process.env.AUTH_OIDC_CLIENT_ID,
        clientSecret: process.env.AUTH_OIDC_CLIENT_SECRET,
        authorization: { params: { scope: "openid email profile" } },
        idToken: true,
        checks: ["pkce", "state"],
        allowDangerousEmailAccountLinking: true, // guarded by the signIn callback below
        profile: (p: Record<string, unknown>) => ({ id: String(p.sub), email: p.email as string, name: (p.name as string) ?? null }),
      },
    });
  }
  if (process.env.AUTH_GITHUB_ID && process.env.AUTH_GITHUB_SECRET) {
    out.push({
      id: "github",
      issuer: "https://github.com",
      provider: GitHubProvider({ clientId: process.env.AUTH_GITHUB_ID, clientSecret: process.env.AUTH_GITHUB_SECRET, allowDangerousEmailAccountLinking: true }) as never,
    });
  }
  if (process.env.AUTH_GOOGLE_ID && process.env.AUTH_GOOGLE_SECRET) {
    out.push({
      id: "google",
      issuer: "https://accounts.google.com",
      provider: GoogleProvider({ clientId: process.env.AUTH_GOOGLE_ID, clientSecret: process.env.AUTH_GOOGLE_SECRET, allowDangerousEmailAccountLinking: true }) as never,
    });
  }
  return out;
}

/** The providers a sign-in page may offer (id and display name only). */
export function configuredProviders(): Array<{ id: string; name: string }> {
  return providerDefs().map((d) => ({ id: d.id, name: d.provider.name }));
}

function issuerOf(providerId: string): string {
  const def = providerDefs().find((d) => d.id === providerId);
  if (!def) throw new Error(`unknown provider ${providerId}`);
  return def.issuer;
}

/** Whether the provider asserts the sign-in email verified (GitHub: a verified primary email). */
async function emailVerified(providerId: string, profile: Record<string, unknown> | undefined, accessToken: string | undefined, email: string | null | undefined): Promise<boolean> {
  if (providerId !== "github") return profile?.email_verified === true;
  if (!accessToken || !email) return false;
  const res = await fetch("https://api.github.com/user/emails", { headers: { authorization: `Bearer ${accessToken}`, "user-agent": "MA2H-Hub" } });
  if (!res.ok) return false;
  const emails = (await res.json()) as Array<{ email: string; primary: boolean; verified: boolean }>;
  return emails.some((e) => e.primary && e.verified && e.email.toLowerCase() === email.toLowerCase());
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
  // next-auth reads these two; MA2H_PUBLIC_URL and AUTH_SECRET are the Hub's own names for them.
  process.env.NEXTAUTH_URL ||= e.publicUrl;
  process.env.NEXTAUTH_SECRET ||= e.AUTH_SECRET ?? "";
  return {
    adapter,
    secret: e.AUTH_SECRET,
    providers: providerDefs().map((d) => d.provider),
    session: { strategy: "database", maxAge: SESSION_DAYS * 86_400 },
    pages: { signIn: "/signin", error: "/signin" },
    callbacks: {
      async signIn({ account, profile, user }) {
        if (!account) return false;
        const issuer = issuerOf(account.provider);
        const bound = await userForIdentity(issuer, account.providerAccountId);
        if (bound && (await hasAnySeat(bound))) return true;
        if (bound) {
          log.warn("sign-in refused", { provider: account.provider, reason: "no_seat" });
          return "/signin?error=AccessDenied";
        }
        const verified = await emailVerified(account.provider, profile as Record<string, unknown>, account.access_token, user.email);
        const invited = await invitedUserForFirstSignIn(user.email, verified);
        if (invited) return true;
        log.warn("sign-in refused", { provider: account.provider, reason: verified ? "not_invited" : "email_not_verified" });
        return "/signin?error=AccessDenied";
      },
      async session({ session, user }) {
        return { ...session, user: { id: user.id, email: user.email, name: user.name } } as typeof session;
      },
    },
  };
}
