/**
 * Requests the Hub cannot take apart get the §8.5 error envelope from the Node server layer, before
 * Next sees them (all found by the fuzzer):
 * - a request head Node's parser refuses (a bad request line, a header with control characters, a
 *   head over the size limit, a bad chunk) — Node's default answer is a bare `400` without a body;
 * - a request-target that is not an origin-form path (`*`, an absolute URL, `//host`), that has a
 *   `%` not followed by two hex digits, whose path decodes to a control character or has a `.` or
 *   `..` segment (raw or `%2e`), or whose query has a `%00` — Next would answer those with an HTML
 *   error page, a 500 (PostgreSQL refuses a NUL), or the page of another path;
 * - a method no route serves (TRACE, CONNECT, WebDAV verbs, …);
 * - a Server Action request Next would answer with a 500 (see `serverActionProblem`).
 * Each is `400 validation_error`, except an unserved method, which is `404 not_found` like every
 * other verb a route does not implement (lib/http/handler.ts `noSuchEndpoint`), and a cross-site
 * Server Action, `403 not_authorized`. §8.5 has no 405 or 431, so neither is used.
 */
import { IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { HubError } from "@ma2h/protocol/errors";
import { actionReplyProblem } from "./action-reply";

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
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return "the request-target's path decodes to a control character";
  // PostgreSQL cannot hold a NUL, and no query parameter of the Hub means one.
  if (/%00/.test(target.slice(path.length))) return "the query string has a NUL character";
  // A browser removes dot segments before it sends; a path that still has one (raw or encoded)
  // would name another route than the one it appears to be under.
  if (path.split("/").some((seg) => /^(\.|%2e){1,2}$/i.test(seg))) return "the request-target's path has a dot segment";
  return null;
}

/**
 * The trees served by route handlers alone (their catch-alls answer any other path). Under `/api`
 * a path with no route handler is Next's not-found *page*, which takes Server Actions like any
 * page, so `/api` is screened too (found by the fuzzer).
 */
const NOT_A_PAGE = /^\/(v1|a2a|\.well-known)(\/|$)/;

/** Next's Server Action ids: 42 hex digits (next/dist/shared/lib/server-reference-info). */
const SERVER_ACTION_ID = /^[0-9a-f]{42}$/i;

/**
 * A POST Next would take for a Server Action — a `Next-Action` header, or a multipart body — to a
 * page. Next throws (a 500) on an action id of the wrong shape and on an `Origin` that is not a URL,
 * and answers a cross-site action with a deliberate 500. The same checks here, first: a malformed
 * id or origin is `400`; an origin whose host is not the request's (`X-Forwarded-Host` from a
 * trusted proxy, else `Host`, as Next compares) is `403 not_authorized` (found by the fuzzer).
 */
export function serverActionProblem(req: IncomingMessage): HubError | null {
  const path = (req.url ?? "").split("?")[0] as string;
  if (req.method !== "POST" || NOT_A_PAGE.test(path)) return null;
  const actionId = req.headers["next-action"];
  const multipart = String(req.headers["content-type"] ?? "").startsWith("multipart/form-data");
  if (actionId === undefined && !multipart) return null;
  if (actionId !== undefined && !SERVER_ACTION_ID.test(String(actionId)))
    return new HubError("validation_error", "malformed Server Action id");
  const origin = req.headers.origin;
  if (origin === undefined) return null; // Next lets a request without Origin through, as a browser never sends one cross-site
  // A sandboxed or privacy-stripped context sends `null`: cross-site by definition.
  if (origin === "null") return new HubError("not_authorized", "cross-site request refused");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return new HubError("validation_error", "the Origin header is not a URL");
  }
  const forwarded = String(req.headers["x-forwarded-host"] ?? "")
    .split(",")[0]
    ?.trim();
  const host = forwarded || req.headers.host;
  if (originHost === "" || originHost !== host) return new HubError("not_authorized", "cross-site request refused");
  return null;
}

/** False when the request was answered here (and must not reach Next). */
export function admitRequestHead(req: IncomingMessage, res: ServerResponse): boolean {
  let err: HubError | null = null;
  if (!SERVED_METHODS.has(req.method ?? "")) err = new HubError("not_found", "no such endpoint");
  else {
    const problem = targetProblem(req.url ?? "");
    if (problem) err = new HubError("validation_error", problem);
    else err = serverActionProblem(req);
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

/** Next's default Server Action body limit (next.config.ts sets none): a bigger form fails there anyway. */
const FORM_ACTION_MAX_BYTES = 1024 * 1024;

/**
 * A multipart POST to a page is a Server Action form (the admin forms post one before hydration,
 * without JavaScript); Next decodes the body inside its action handler and answers a malformed one
 * with a 500 (found by the fuzzer). Such a body is read here first, at most 1 MiB, checked to
 * be multipart form data, and handed to Next as a replay of the same request; a malformed or
 * oversized one is `400 validation_error`. So is the body of a Server Action called from script
 * (a `Next-Action` header) that React's decoder would choke on (./action-reply.ts). The protocol
 * routes read their own bodies.
 */
export function isPageFormPost(req: IncomingMessage): boolean {
  const type = String(req.headers["content-type"] ?? "").toLowerCase();
  const path = (req.url ?? "").split("?")[0] as string;
  const action = type.startsWith("multipart/form-data") || req.headers["next-action"] !== undefined;
  return req.method === "POST" && action && !NOT_A_PAGE.test(path);
}

/** The request to hand Next (a replay carrying the checked body), or null when answered here. */
export async function screenPageFormPost(req: IncomingMessage, res: ServerResponse): Promise<IncomingMessage | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  let problem: string | null = null;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > FORM_ACTION_MAX_BYTES) {
        problem = "the form body is over 1 MiB";
        break;
      }
      chunks.push(chunk as Buffer);
    }
  } catch {
    problem = "the request body ended before it was complete";
  }
  const body = Buffer.concat(chunks);
  const type = String(req.headers["content-type"] ?? "");
  const calledFromScript = req.headers["next-action"] !== undefined;
  if (!problem && type.toLowerCase().startsWith("multipart/form-data")) {
    try {
      const form = await new Response(body, { headers: { "content-type": type } }).formData();
      if (calledFromScript) {
        const fields = new Map([...form.entries()]);
        const root = fields.get("0");
        problem =
          typeof root === "string" ? actionReplyProblem(root, fields) : "the Server Action body has no root part";
      }
    } catch {
      problem = "the form body is not multipart form data";
    }
  } else if (!problem) {
    problem = actionReplyProblem(body.toString("utf8"), null);
  }
  if (problem) {
    const { head, body: envelope } = envelopeBytes(new HubError("validation_error", problem));
    res.writeHead(400, { ...head, connection: "close" }).end(envelope);
    return null;
  }
  const replay = new IncomingMessage(req.socket);
  replay.method = req.method;
  replay.url = req.url;
  replay.headers = req.headers;
  replay.rawHeaders = req.rawHeaders;
  replay.httpVersion = req.httpVersion;
  replay.httpVersionMajor = req.httpVersionMajor;
  replay.httpVersionMinor = req.httpVersionMinor;
  replay.complete = true;
  replay.push(body);
  replay.push(null);
  return replay;
}
