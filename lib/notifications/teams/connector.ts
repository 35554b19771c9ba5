/**
 * The Hub's calls out to Microsoft for a Teams bot (docs/notifications.md "Microsoft Teams"), every
 * one through the SSRF-safe egress client (lib/delivery/egress.ts), bounded by MA2H_TEAMS_TIMEOUT_MS:
 * - the app token: client credentials at TEAMS_TOKEN_URL (`{tenant}` → the connection's tenant),
 *   scope `https://api.botframework.com/.default`;
 * - the Bot Connector (create and update an activity): only at a service URL whose host is one of
 *   Microsoft's Bot Connector hosts or MA2H_TEAMS_SERVICE_HOSTS, over https — a service URL named in
 *   an activity is never trusted by itself (invoke.ts checks it against the signed token too);
 * - the OpenID metadata and its signing keys (auth.ts).
 * In dev mode only, MA2H_DEV_CALLBACK_ALLOWLIST's origins may be plain http and loopback (tests run
 * local stand-ins). Failures become a `SendResult`-like class (`teams_<what>`); never a secret.
 */
import { devCallbackAllowlist, originKey } from "../../delivery/policy";
import { exchange, getSmall, type PostJsonOptions } from "../../delivery/egress";
import { env } from "../../env";
import { hostAllowed, parseHostPolicy } from "../../net/host-policy";

/** Microsoft's Bot Connector hosts (public cloud and the government clouds). */
export const KNOWN_TEAMS_SERVICE_HOSTS = [
  "smba.trafficmanager.net",
  "*.smba.trafficmanager.net",
  "smba.infra.gcc.teams.microsoft.com",
  "*.infra.gov.teams.microsoft.us",
] as const;

export type Failure = { ok: false; transient: boolean; errorClass: string; responseCode: number | null };

function devOrigins(): Set<string> {
  return env().MA2H_DEV_MODE ? devCallbackAllowlist() : new Set();
}

function options(extra: Record<string, string> = {}): PostJsonOptions {
  return { headers: extra, timeoutMs: env().MA2H_TEAMS_TIMEOUT_MS, allowLoopback: devOrigins() };
}

/** May the Hub send to this service URL? Microsoft's hosts over https (or a dev-allowlisted origin). */
export function serviceUrlAllowed(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username || url.password || url.search || url.hash) return false;
  if (devOrigins().has(originKey(url))) return url.protocol === "https:" || url.protocol === "http:";
  const extra = env().MA2H_TEAMS_SERVICE_HOSTS;
  const policy = parseHostPolicy([...KNOWN_TEAMS_SERVICE_HOSTS, ...(extra ? [extra] : [])].join(","));
  return url.protocol === "https:" && hostAllowed(policy, url.hostname);
}

function failureOf(status: number | null, what: string): Failure {
  return {
    ok: false,
    transient: status === null || status >= 500 || status === 408 || status === 429,
    errorClass: `teams_${what}`,
    responseCode: status,
  };
}

function jsonOf(body: Buffer | undefined): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body?.toString("utf8") ?? "") as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** GET a small JSON document (the OpenID metadata, the key set). */
export async function getJson(url: string): Promise<Record<string, unknown> | null> {
  const res = await getSmall(url, { ...options(), maxResponseBytes: 256 * 1024 });
  return res.ok && res.status === 200 ? jsonOf(res.body) : null;
}

/** An app token for the bot (client credentials), or the failure. */
export async function appToken(bot: {
  appId: string;
  tenantId: string;
  appSecret: string;
}): Promise<{ ok: true; token: string } | Failure> {
  const url = env().TEAMS_TOKEN_URL.replace("{tenant}", encodeURIComponent(bot.tenantId));
  const body = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: bot.appId,
    client_secret: bot.appSecret,
    scope: "https://api.botframework.com/.default",
  }).toString();
  const res = await exchange(
    url,
    { method: "POST", body, contentType: "application/x-www-form-urlencoded" },
    options(),
  );
  if (!res.ok) return failureOf(null, "token_network");
  const json = jsonOf(res.body);
  if (res.status !== 200 || typeof json?.access_token !== "string")
    return { ...failureOf(res.status, "token_refused"), transient: res.status >= 500 };
  return { ok: true, token: json.access_token };
}

/**
 * One Bot Connector call: POST a new activity to the conversation, or PUT (update) one. The service
 * URL is checked first; an app token is obtained for the call.
 */
export async function connectorCall(
  bot: { appId: string; tenantId: string; appSecret: string },
  call: { serviceUrl: string; conversationId: string; activityId?: string; activity: Record<string, unknown> },
): Promise<{ ok: true; id: string | null } | Failure> {
  if (!serviceUrlAllowed(call.serviceUrl))
    return { ok: false, transient: false, errorClass: "teams_service_url_refused", responseCode: null };
  const token = await appToken(bot);
  if (!token.ok) return token;
  const base = call.serviceUrl.endsWith("/") ? call.serviceUrl : `${call.serviceUrl}/`;
  const path = `v3/conversations/${encodeURIComponent(call.conversationId)}/activities${
    call.activityId ? `/${encodeURIComponent(call.activityId)}` : ""
  }`;
  const res = await exchange(
    new URL(path, base).toString(),
    { method: call.activityId ? "PUT" : "POST", body: JSON.stringify(call.activity), contentType: "application/json" },
    options({ Authorization: `Bearer ${token.token}` }),
  );
  if (!res.ok) return failureOf(null, "network");
  if (res.status < 200 || res.status >= 300) return failureOf(res.status, "http");
  const id = jsonOf(res.body)?.id;
  return { ok: true, id: typeof id === "string" ? id : null };
}

/**
 * Opens (or finds) the bot's personal chat with a Teams user (`POST /v3/conversations`), as the Bot
 * Connector does for proactive messages; the conversation's id, or the failure.
 */
export async function openPersonalChat(
  bot: { appId: string; tenantId: string; appSecret: string },
  serviceUrl: string,
  chatUserId: string,
): Promise<{ ok: true; id: string } | Failure> {
  if (!serviceUrlAllowed(serviceUrl))
    return { ok: false, transient: false, errorClass: "teams_service_url_refused", responseCode: null };
  const token = await appToken(bot);
  if (!token.ok) return token;
  const base = serviceUrl.endsWith("/") ? serviceUrl : `${serviceUrl}/`;
  const res = await exchange(
    new URL("v3/conversations", base).toString(),
    {
      method: "POST",
      body: JSON.stringify({
        bot: { id: `28:${bot.appId}` },
        members: [{ id: chatUserId }],
        isGroup: false,
        tenantId: bot.tenantId,
        channelData: { tenant: { id: bot.tenantId } },
      }),
      contentType: "application/json",
    },
    options({ Authorization: `Bearer ${token.token}` }),
  );
  if (!res.ok) return failureOf(null, "network");
  if (res.status < 200 || res.status >= 300) return failureOf(res.status, "http");
  const id = jsonOf(res.body)?.id;
  return typeof id === "string"
    ? { ok: true, id }
    : { ok: false, transient: false, errorClass: "teams_bad_reply", responseCode: res.status };
}
