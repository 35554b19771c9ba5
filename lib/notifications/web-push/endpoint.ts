/**
 * Which push-service endpoints the Hub will talk to: https only, like callbacks (§9.4) — and
 * the egress (lib/delivery/egress.ts) refuses private and loopback addresses at send time whatever
 * the scheme. An https endpoint must also be on a known push service: the ones browsers use
 * (`KNOWN_PUSH_SERVICES`) plus whatever the operator adds in MA2H_PUSH_SERVICES — so a signed-in
 * person cannot make the Hub POST to a host of their choosing (docs/security.md). A plaintext or
 * loopback endpoint is allowed only in dev mode and only when its exact origin is in
 * MA2H_DEV_CALLBACK_ALLOWLIST: the same list that lets dev callbacks reach a local receiver
 * (docs/decisions/notifications.md "Browser push: endpoints"), so tests run a local push service.
 */
import { devCallbackAllowlist, originKey } from "../../delivery/policy";
import { env } from "../../env";
import { hostAllowed, parseHostPolicy } from "../../net/host-policy";

/**
 * The push services of the browsers people use, in MA2H_CALLBACK_ORIGIN_POLICY's notation:
 * Chrome and Chromium-based browsers (Firebase Cloud Messaging), Firefox (Mozilla autopush), Safari
 * (Apple), Edge on Windows (Windows Push Notification Services).
 */
export const KNOWN_PUSH_SERVICES = [
  "fcm.googleapis.com",
  "*.push.services.mozilla.com",
  "*.push.apple.com",
  "*.notify.windows.com",
] as const;

/** The dev allowlist when dev mode is on; nothing otherwise (production ignores the list). */
export function devPushOrigins(): Set<string> {
  return env().MA2H_DEV_MODE ? devCallbackAllowlist() : new Set();
}

/** The known push services and the operator's additions (validated by `env()` at start). */
function pushServices() {
  const extra = env().MA2H_PUSH_SERVICES;
  return parseHostPolicy([...KNOWN_PUSH_SERVICES, ...(extra ? [extra] : [])].join(","));
}

/** Whether a subscription may name this endpoint (and a send may go to it). */
export function endpointAllowed(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (devPushOrigins().has(originKey(url))) return url.protocol === "https:" || url.protocol === "http:";
  return url.protocol === "https:" && hostAllowed(pushServices(), url.hostname);
}
