/**
 * §8 "Plaintext MUST NOT be offered". Until TLS and proxy modes land, the Hub serves plaintext only
 * in dev mode (MA2H_DEV_MODE=1), only to loopback peers; otherwise it refuses to start.
 */
import { log } from "../lib/log";
import type { Env } from "../lib/env";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK.has(address);
}

export function assertTransportAllowed(devMode: boolean): void {
  if (!devMode) {
    throw new Error(
      "Refusing to start: plaintext HTTP is only allowed in dev mode (MA2H_DEV_MODE=1, loopback peers only). " +
        "TLS and reverse-proxy modes are not available in this version.",
    );
  }
}

export const DEV_MODE_WARNING =
  "DEV MODE: serving plaintext HTTP to loopback peers only (127.0.0.1, ::1). Never expose this Hub to a network in this mode.";

/** §9.4: the dev callback allowlist means nothing outside dev mode; say so rather than ignore it silently. */
export function warnIgnoredSettings(e: Env): void {
  if (!e.MA2H_DEV_MODE && e.MA2H_DEV_CALLBACK_ALLOWLIST.trim() !== "") {
    log.warn("MA2H_DEV_CALLBACK_ALLOWLIST is ignored outside dev mode: plaintext and loopback callbacks are refused");
  }
}
