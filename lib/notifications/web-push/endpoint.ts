/**
 * Which push-service endpoints the Hub will talk to (#17): https only, like callbacks (§9.4) — and
 * the egress (lib/delivery/egress.ts) refuses private and loopback addresses at send time whatever
 * the scheme. A plaintext or loopback endpoint is allowed only in dev mode and only when its exact
 * origin is in MA2H_DEV_CALLBACK_ALLOWLIST: the same list that lets dev callbacks reach a local
 * receiver (docs/decisions.md "Browser push: endpoints"), so tests run a local push service.
 */
import { devCallbackAllowlist, originKey } from "../../delivery/policy";
import { env } from "../../env";

/** The dev allowlist when dev mode is on; nothing otherwise (production ignores the list). */
export function devPushOrigins(): Set<string> {
  return env().MA2H_DEV_MODE ? devCallbackAllowlist() : new Set();
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
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && devPushOrigins().has(originKey(url));
}
