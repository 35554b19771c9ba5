/**
 * Requests the Hub cannot take apart get the §8.5 error envelope from the Node server layer, before
 * Next sees them (all found by the fuzzer, #19):
 * - a request head Node's parser refuses (a bad request line, a header with control characters, a
 *   head over the size limit, a bad chunk) — Node's default answer is a bare `400` without a body;
 * - a request-target that is not an origin-form path (`*`, an absolute URL), that has a `%` not
 *   followed by two hex digits, or that decodes to a NUL or other control character — Next would
 *   answer those with an HTML error page or a 500;
 * - a method no route serves (TRACE, CONNECT, WebDAV verbs, …).
 * Each is `400 validation_error`, except an unserved method, which is `404 not_found` like every
 * other verb a route does not implement (lib/http/handler.ts `noSuchEndpoint`). §8.5 has no 405
 * or 431, so neither is used.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { HubError } from "../lib/protocol/errors";

/** The verbs some route of the Hub (the protocol, the pages, next-auth) serves. */
const SERVED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function envelopeBytes(err: HubError): { head: Record<string, string>; body: string } {
  const body = JSON.stringify(err.toBody());
  return {
    head: {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
      "cache-control": "no-store",
    },
    body,
  };
}

/** Why a request-target is refused, or null when Next may have it. */
export function targetProblem(target: string): string | null {
  if (!target.startsWith("/") || target.startsWith("//")) return "the request-target must be a path";
  const path = target.split("?")[0] as string;
  if (/%(?![0-9A-Fa-f]{2})/.test(target)) return "the request-target has a malformed percent-encoding";
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return "the request-target's path is not UTF-8 once decoded";
  }
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return "the request-target's path decodes to a control character";
  return null;
}

/** False when the request was answered here (and must not reach Next). */
export function admitRequestHead(req: IncomingMessage, res: ServerResponse): boolean {
  let err: HubError | null = null;
  if (!SERVED_METHODS.has(req.method ?? "")) err = new HubError("not_found", "no such endpoint");
  else {
    const problem = targetProblem(req.url ?? "");
    if (problem) err = new HubError("validation_error", problem);
  }
  if (!err) return true;
  const { head, body } = envelopeBytes(err);
  res.writeHead(err.status, { ...head, connection: "close" }).end(req.method === "HEAD" ? undefined : body);
  return false;
}

/**
 * The server's `clientError` (a head the parser refused) and `connect` (a CONNECT request, which
 * never reaches the request handler) answers: the envelope on the raw socket, then close.
 */
export function answerUnparseable(socket: Duplex, message = "malformed HTTP request"): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { head, body } = envelopeBytes(new HubError("validation_error", message));
  const lines = Object.entries({ ...head, connection: "close" }).map(([k, v]) => `${k}: ${v}`);
  socket.end(`HTTP/1.1 400 Bad Request\r\n${lines.join("\r\n")}\r\n\r\n${body}`);
}

export function clientErrorMessage(err: NodeJS.ErrnoException): string {
  if (err.code === "HPE_HEADER_OVERFLOW") return "the request head is too large";
  return "malformed HTTP request";
}
