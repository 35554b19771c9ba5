/**
 * Verifies the Bot Framework's bearer token on an incoming activity (docs/notifications.md
 * "Microsoft Teams: who may click"), per the Bot Connector's authentication rules: the token is a
 * JWT signed by one of the keys listed at the `jwks_uri` of the OpenID metadata
 * (TEAMS_OPENID_METADATA_URL), its issuer is `https://api.botframework.com`, its audience is the
 * connection's app id, it has not expired (five minutes of clock skew allowed, as the Bot Framework
 * allows), and its `serviceurl` claim equals the activity's `serviceUrl` — so a token minted for one
 * conversation cannot direct the Hub's reply to another host. The keys are fetched per check (no
 * cache kept: a click is rare, and a rotated key is seen at once).
 */
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { env } from "../../env";
import { getJson } from "./connector";

export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";
const CLOCK_SKEW_S = 300;

export type TokenVerdict = "ok" | "missing" | "keys_unavailable" | "invalid" | "service_url_mismatch";

async function signingKeys(): Promise<JSONWebKeySet | null> {
  const metadata = await getJson(env().TEAMS_OPENID_METADATA_URL);
  const jwksUri = metadata?.jwks_uri;
  if (typeof jwksUri !== "string") return null;
  const set = await getJson(jwksUri);
  return Array.isArray(set?.keys) ? (set as unknown as JSONWebKeySet) : null;
}

/** The verdict on `Authorization: Bearer <jwt>` for an activity naming `serviceUrl`. */
export async function verifyBotToken(
  authorization: string | null,
  appId: string,
  serviceUrl: string | null,
  now: Date,
): Promise<TokenVerdict> {
  const m = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(authorization ?? "");
  if (!m?.[1]) return "missing";
  const keys = await signingKeys();
  if (!keys) return "keys_unavailable";
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(m[1], createLocalJWKSet(keys), {
      issuer: BOT_FRAMEWORK_ISSUER,
      audience: appId,
      algorithms: ["RS256"],
      clockTolerance: CLOCK_SKEW_S,
      currentDate: now,
      requiredClaims: ["exp"],
    }));
  } catch {
    return "invalid";
  }
  const claimed = payload.serviceurl;
  if (typeof claimed !== "string" || serviceUrl === null || !sameServiceUrl(claimed, serviceUrl))
    return "service_url_mismatch";
  return "ok";
}

/** Equal service URLs, a trailing slash aside. */
function sameServiceUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}
