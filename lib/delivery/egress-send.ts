/**
 * §9.4 step 3: one POST to the pinned IP. The socket is opened to the vetted address itself (no
 * lookup happens); `Host` and TLS SNI carry the URL hostname and the certificate is verified against
 * it. node:http(s) directly: no proxy variables, and redirects are never followed. By default a
 * one-off connection, closed after the answer; with a kept-alive agent (egress-agents.ts) the socket
 * goes back to that agent's pool for the same pinned address once the answer has been read in full.
 * The response body is counted and discarded (or kept, when asked).
 */
import http, { type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { describeError, failure, type EgressOutcome } from "./egress-result";
import type { EgressTarget } from "./egress-target";

export interface SendOptions {
  headers: Record<string, string>;
  /** The body's media type; default JSON (callbacks). Web Push sends `application/octet-stream`. */
  contentType?: string;
  maxResponseBytes: number;
  ca?: string | Buffer;
  /** Default POST. A GET sends no body (the origin-proof fetch); PUT updates (a Teams card). */
  method?: "POST" | "GET" | "PUT";
  /** Keep the response body (up to maxResponseBytes) instead of discarding it. */
  keepBody?: boolean;
  /** A kept-alive agent whose pool the socket returns to; default none (one connection, closed). */
  agent?: http.Agent;
}

/** Set by us only: a caller cannot retarget, reframe or mislabel the request. */
const OWN_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "user-agent",
  "connection",
  "transfer-encoding",
  "te",
  "upgrade",
  "expect",
  "keep-alive",
  "proxy-authorization",
  "proxy-connection",
]);

function requestHeaders(
  target: EgressTarget,
  body: string | Buffer,
  extra: Record<string, string>,
  contentType: string,
  keepAlive: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(extra)) if (!OWN_HEADERS.has(k.toLowerCase())) out[k] = v;
  return {
    ...out,
    Host: target.hostHeader,
    "Content-Type": contentType,
    "Content-Length": String(Buffer.byteLength(body)),
    "User-Agent": "MA2H-Hub",
    Connection: keepAlive ? "keep-alive" : "close",
  };
}

type Stage = "connect" | "tls" | "http";

function classify(e: unknown, stage: Stage, signal: AbortSignal): EgressOutcome {
  const code = (e as { code?: unknown })?.code;
  if (signal.aborted) return failure("timeout", `deadline passed (${stage})`);
  if (code === "HPE_HEADER_OVERFLOW") return failure("response_too_large", "response headers too large");
  if (stage === "connect") return failure("connect_error", describeError(e));
  if (stage === "tls") return failure("tls_error", describeError(e));
  return failure("network_error", describeError(e));
}

export function sendPinned(
  target: EgressTarget,
  pinned: { address: string },
  body: string | Buffer,
  options: SendOptions,
  signal: AbortSignal,
): Promise<EgressOutcome> {
  return new Promise((resolve) => {
    const tls = target.scheme === "https:";
    let stage: Stage = "connect";
    let req: ClientRequest | undefined;
    let settled = false;
    const settle = (outcome: EgressOutcome, reusable = false) => {
      if (settled) return;
      settled = true;
      // Closes the socket — nothing more is read — unless the answer was read in full and the agent
      // keeps the socket for its next request to the same address.
      if (!(reusable && options.agent)) req?.destroy();
      resolve(outcome);
    };
    const common = {
      host: pinned.address, // the vetted IP: net.connect does no lookup for an IP literal
      port: target.port,
      path: target.path,
      method: options.method ?? "POST",
      headers: requestHeaders(
        target,
        body,
        options.headers,
        options.contentType ?? "application/json",
        !!options.agent,
      ),
      agent: options.agent ?? (false as const),
      signal,
    };
    try {
      req = tls
        ? https.request({
            ...common,
            // SNI + certificate name = the URL hostname; RFC 6066 forbids an IP as SNI, so an
            // IP-literal URL sends none and the certificate is checked against the IP instead.
            servername: isIP(target.hostname) ? "" : target.hostname,
            rejectUnauthorized: true, // not overridable by NODE_TLS_REJECT_UNAUTHORIZED
            ...(options.ca ? { ca: options.ca } : {}),
          })
        : http.request(common);
    } catch (e) {
      resolve(failure("network_error", describeError(e)));
      return;
    }
    req.on("socket", (socket) => {
      // A kept-alive socket is already connected (and through TLS): what fails on it is HTTP.
      if (!socket.connecting && (socket as { readyState?: string }).readyState === "open") stage = "http";
      socket.once("connect", () => {
        if (stage === "connect") stage = tls ? "tls" : "http";
      });
      socket.once("secureConnect", () => {
        stage = "http";
      });
    });
    req.on("response", (res: IncomingMessage) => {
      stage = "http";
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > options.maxResponseBytes) {
        return settle(failure("response_too_large", `declared ${declared} bytes > ${options.maxResponseBytes}`));
      }
      let seen = 0;
      const kept: Buffer[] = [];
      res.on("data", (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > options.maxResponseBytes)
          settle(failure("response_too_large", `more than ${options.maxResponseBytes} bytes`));
        else if (options.keepBody) kept.push(chunk);
      });
      res.on("end", () =>
        settle(
          { ok: true, status: res.statusCode ?? 0, ...(options.keepBody ? { body: Buffer.concat(kept) } : {}) },
          true,
        ),
      );
      res.on("error", (e) => settle(classify(e, "http", signal)));
      res.on("close", () =>
        settle(
          signal.aborted
            ? failure("timeout", "deadline passed (http)")
            : failure("network_error", "response ended early"),
        ),
      );
    });
    req.on("error", (e) => settle(classify(e, stage, signal)));
    req.end(body);
  });
}
