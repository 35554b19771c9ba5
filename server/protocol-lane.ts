/**
 * The protocol lane (docs/PERFORMANCE.md): the routes the /v1 manifest marks `lane`
 * (packages/protocol/src/routes.ts) — the three hottest: submit (`POST /v1/messages`), poll and long-poll
 * (`GET /v1/messages/{id}`) and resolve (`POST /v1/messages/{id}/resolve`) — are dispatched from here
 * straight to their handlers, the very ones their App Router route files export to Next (one
 * definition each), instead of through Next's router and render pipeline. Measured on the 2-core box (docs/PERFORMANCE.md), that
 * pipeline costs 1.8–2.2 ms of CPU and ~3 ms of latency per POST before a handler runs — more than
 * the Hub's own work per submit — and a parked long-poll holds ~63 KiB through it, ~21 KiB here.
 *
 * The lane takes only requests whose meaning cannot differ from Next's: exactly those paths, with an
 * id segment of plain id characters (anything to decode, a trailing slash, another verb or HEAD goes
 * to Next, which answers as before). The request reaches the handler as a web Request whose body
 * streams from the socket (the handler's own limits apply) and whose signal aborts when the client
 * goes away (a long-poll stops waiting); its Response is written back as it is. Everything in front
 * of Next — the transport gate, the request-head checks, X-Forwarded-* screening, metrics — has run by
 * then (server/web.ts). MA2H_PROTOCOL_LANE=0 sends everything through Next (bench:submit compares).
 */
import type http from "node:http";
import { Readable } from "node:stream";
import { type RouteHandler, V1_MANIFEST } from "../lib/http/routes";
import { templateParams, templatePattern } from "@ma2h/protocol/routes";
import { log } from "../lib/log";

/** An id as a path segment: nothing to decode, nothing Next would read differently. */
const ID_SEGMENT = "[A-Za-z0-9_-]{1,128}";

/** The manifest's `lane` entries, each with its exact pattern over plain id segments. */
const LANE = V1_MANIFEST.filter((e) => e.lane).map((e) => ({
  method: e.method as string,
  pattern: templatePattern(e.path, ID_SEGMENT),
  names: templateParams(e.path),
  handler: e.handler,
}));

function route(
  method: string | undefined,
  path: string,
): { handler: RouteHandler; params: Record<string, string> } | null {
  for (const entry of LANE) {
    if (entry.method !== method) continue;
    const m = entry.pattern.exec(path);
    if (m)
      return { handler: entry.handler, params: Object.fromEntries(entry.names.map((n, i) => [n, m[i + 1] as string])) };
  }
  return null;
}

/**
 * From `req.headers`, never `rawHeaders`: server/forwarded.ts screens X-Forwarded-* in `req.headers`
 * (a client's own chain is dropped, the peer or the trusted proxy's client is set), as Next reads them.
 */
function headersOf(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else headers.set(name, value);
  }
  return headers;
}

/**
 * Answers `req` when it is one of the lane's routes and returns true; false leaves it to Next.
 * `origin` is the base the handlers see in `req.url`: the Hub's public URL (they read only the path
 * and query from it).
 */
export function serveProtocolLane(req: http.IncomingMessage, res: http.ServerResponse, origin: string): boolean {
  const target = req.url ?? "";
  const q = target.indexOf("?");
  const path = q === -1 ? target : target.slice(0, q);
  const match = route(req.method, path);
  if (!match) return false;
  const aborted = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborted.abort();
  });
  let request: Request;
  try {
    request = new Request(origin + target, {
      method: req.method,
      headers: headersOf(req),
      signal: aborted.signal,
      ...(req.method === "POST" ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
    } as RequestInit);
  } catch {
    return false; // a head the web Request refuses: Next answers it as before
  }
  const params = Promise.resolve(match.params);
  void match
    .handler(request, { params })
    .then(async (response) => {
      const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
      const headers: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        if (name !== "set-cookie") headers[name] = value;
      });
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) headers["set-cookie"] = cookies;
      if (body !== null) headers["content-length"] = String(body.length);
      res.writeHead(response.status, headers);
      res.end(body ?? undefined);
    })
    .catch((err: Error) => {
      // route() answers every error itself; reaching here is a bug or a socket gone mid-write.
      log.error("protocol lane failed", { error_name: err.name });
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(
        res.writableEnded
          ? undefined
          : JSON.stringify({ error: { code: "internal_error", message: "internal error" } }),
      );
    });
  return true;
}
