/**
 * §8 "Plaintext MUST NOT be offered". Three ways to serve, chosen from the environment:
 * - `tls`: HTTPS from TLS_CERT_FILE / TLS_KEY_FILE (reloaded on SIGHUP), any peer;
 * - `proxy`: behind a TLS-terminating proxy (MA2H_TRUST_PROXY=1), refusing any request whose
 *   X-Forwarded-Proto is not `https` — a header believed only from MA2H_TRUSTED_PROXIES
 *   (server/forwarded.ts removes it first from any other peer);
 * - `dev`: plaintext to loopback peers only (MA2H_DEV_MODE=1), with a loud warning.
 * With none of them the Hub refuses to start and says why; a dev setting together with TLS or
 * proxy mode is refused by `env()` (§9.4).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Env } from "../lib/env";
import { HubError } from "@ma2h/protocol/errors";

export type TransportMode = "tls" | "proxy" | "dev";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK.has(address);
}

export function transportMode(e: Env): TransportMode {
  if (e.TLS_CERT_FILE || e.TLS_KEY_FILE) {
    if (!e.TLS_CERT_FILE || !e.TLS_KEY_FILE)
      throw new Error("Refusing to start: set both TLS_CERT_FILE and TLS_KEY_FILE.");
    return "tls";
  }
  if (e.MA2H_TRUST_PROXY) return "proxy";
  if (e.MA2H_DEV_MODE) return "dev";
  throw new Error(
    "Refusing to start: plaintext HTTP is never offered (MA2H §8). Set TLS_CERT_FILE and TLS_KEY_FILE to serve HTTPS, " +
      "or MA2H_TRUST_PROXY=1 behind a TLS-terminating proxy, or MA2H_DEV_MODE=1 for plaintext to loopback peers only.",
  );
}

export const DEV_MODE_WARNING =
  "DEV MODE: serving plaintext HTTP to loopback peers only (127.0.0.1, ::1). Never expose this Hub to a network in this mode.";

function refuse(res: ServerResponse, message: string): void {
  const err = new HubError("not_authorized", message);
  res.writeHead(err.status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(err.toBody()));
}

/** Per-request transport gate; false when the request was refused (and answered). */
export function admitRequest(mode: TransportMode, req: IncomingMessage, res: ServerResponse): boolean {
  if (mode === "dev" && !isLoopback(req.socket.remoteAddress)) {
    refuse(res, "dev mode serves loopback peers only");
    return false;
  }
  if (mode === "proxy") {
    const proto = String(req.headers["x-forwarded-proto"] ?? "")
      .split(",")[0]
      ?.trim()
      .toLowerCase();
    if (proto !== "https") {
      refuse(res, "plaintext is not offered: this Hub is reachable over HTTPS only");
      return false;
    }
  }
  return true;
}
