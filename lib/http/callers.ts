/** Authenticating the caller of a /v1 route (§9.1). */
import { env } from "../env";
import { HubError } from "@ma2h/protocol/errors";
import { authenticate, presentedCredential, requireAgent } from "../principals/authenticate";
import type { AgentPrincipal } from "../principals/types";
import { humanForSessionToken, sessionTokenFrom } from "../principals/web-sessions";
import type { Resolver } from "../messages/access";
import { isSameOrigin } from "./same-origin";

/** Submit, poll and cancel take an agent credential; a PAT here is `401 unauthenticated`. */
export async function agentCaller(req: Request): Promise<AgentPrincipal> {
  return requireAgent(await authenticate(req.headers));
}

/**
 * The session cookie of a /v1 request. A value that does not decode (a stray `%`, bad UTF-8) is no
 * cookie at all: a malformed cookie is no session — `401`, never a `500`.
 */
function sessionCookie(req: Request): string | undefined {
  const jar = new Map<string, string>();
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (!name) continue;
    try {
      jar.set(name, decodeURIComponent(rest.join("=")));
    } catch {
      jar.delete(name);
    }
  }
  return sessionTokenFrom((n) => jar.get(n));
}

/** A cookie-authenticated write must come from our own pages (the rule: ./same-origin.ts). */
function assertSameOrigin(req: Request): void {
  if (isSameOrigin(req.headers.get("origin"), req.headers.get("sec-fetch-site"), env().publicUrl)) return;
  throw new HubError("not_authorized", "cross-site request refused");
}

/**
 * Resolve takes an agent credential, an operator's personal access token (§8.8), or — for the
 * inbox's own pages — the browser session cookie with a same-origin check.
 */
export async function resolverCaller(req: Request): Promise<Resolver> {
  if (!presentedCredential(req.headers)) {
    const token = sessionCookie(req);
    if (token) {
      assertSameOrigin(req);
      const human = await humanForSessionToken(token);
      if (!human) throw new HubError("unauthenticated", "the session has ended; sign in again");
      return { kind: "human", userId: human.userId };
    }
  }
  const p = await authenticate(req.headers);
  return p.kind === "agent" ? { kind: "agent", principal: p } : { kind: "human", userId: p.userId };
}

/**
 * Directives and presence are for people: an operator's personal access token, or the inbox's own
 * browser session (same-origin checked). An agent credential is `403 not_authorized` whatever it
 * asks for, so the answer is no oracle.
 */
export async function humanCaller(req: Request): Promise<{ userId: string }> {
  const caller = await resolverCaller(req);
  if (caller.kind === "agent")
    throw new HubError("not_authorized", "this endpoint is for operators, not agent credentials");
  return { userId: caller.userId };
}

/**
 * Human-only reads (§15.3 presence): an operator's PAT, or the browser session cookie. An agent
 * credential is `403 not_authorized` before anything is looked up, whatever it asks for, so
 * the answer is no oracle. A GET changes nothing, so the cookie needs no same-origin check.
 */
export async function humanReader(req: Request): Promise<{ userId: string }> {
  if (!presentedCredential(req.headers)) {
    const token = sessionCookie(req);
    const human = token ? await humanForSessionToken(token) : null;
    if (!human)
      throw new HubError("unauthenticated", "sign in, or send an operator token as Authorization: Bearer <token>");
    return { userId: human.userId };
  }
  const p = await authenticate(req.headers);
  if (p.kind === "agent")
    throw new HubError("not_authorized", "presence is readable by the owning account's humans only (§15.3)");
  return { userId: p.userId };
}

/**
 * §16 session routes take an agent credential (the owner's own operations), an operator's PAT, or
 * the inbox's browser session — same-origin checked for a write (the kill-switch is a DELETE).
 */
export async function sessionCaller(req: Request, write: boolean): Promise<Resolver> {
  if (!write && !presentedCredential(req.headers)) {
    const token = sessionCookie(req);
    const human = token ? await humanForSessionToken(token) : null;
    if (human) return { kind: "human", userId: human.userId };
  }
  return resolverCaller(req);
}
