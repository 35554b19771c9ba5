/**
 * The one wrapper around every /v1 route: request id, structured access log, HubError → §8.5
 * envelope. Route handlers stay thin: authenticate → parse → one domain call → serialize.
 */
import { isHubError, HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { limits } from "../env";
import { log, type Logger } from "../log";
import { countFailedAuthentication, sourceOf, throttledSource } from "./auth-throttle";
import { readJsonObject } from "./body";

export interface RouteContext {
  req: Request;
  params: Record<string, string>;
  url: URL;
  requestId: string;
  log: Logger;
  /** The body as a JSON object: `Content-Type: application/json`, at most `max_body_bytes` (§8.1, §8.6). */
  body(): Promise<Record<string, unknown>>;
  /** A body that may be empty or untyped (cancel, acks): `{}` when absent; still size-limited. */
  optionalBody(): Promise<Record<string, unknown>>;
}

type RouteArgs = { params: Promise<Record<string, string | string[]>> };

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** §8.6: `Retry-After` in whole seconds, at least 1. */
function retryAfterHeader(seconds: number | null): Record<string, string> {
  return seconds === null ? {} : { "Retry-After": String(Math.max(1, Math.ceil(seconds))) };
}

export function errorResponse(err: HubError): Response {
  return json(err.toBody(), err.status, retryAfterHeader(err.retryAfterSeconds));
}

export function route(fn: (ctx: RouteContext) => Promise<Response>) {
  return async (req: Request, args?: RouteArgs): Promise<Response> => {
    const started = performance.now();
    const requestId = mintId("request");
    const url = new URL(req.url);
    const rawParams = (await args?.params) ?? {};
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(rawParams)) params[k] = Array.isArray(v) ? v.join("/") : v;
    const reqLog = log.child({ request_id: requestId });
    let res: Response;
    let code: string | undefined;
    const source = sourceOf(req);
    try {
      // An address with too many failed authentications is refused before any lookup (auth-throttle.ts).
      const blocked = throttledSource(source);
      if (blocked) throw blocked;
      const maxBytes = limits().maxBodyBytes;
      res = await fn({
        req,
        params,
        url,
        requestId,
        log: reqLog,
        body: () => readJsonObject(req, { maxBytes, requireJson: true, allowEmpty: false }),
        optionalBody: () => readJsonObject(req, { maxBytes, requireJson: false, allowEmpty: true }),
      });
    } catch (err) {
      if (isHubError(err)) {
        code = err.code;
        res = errorResponse(err);
      } else {
        // Never the message: driver errors can quote parameters, and parameters carry content.
        const e = err as {
          name?: string;
          code?: string;
          meta?: { code?: string; driverAdapterError?: { cause?: { kind?: string; originalCode?: string } } };
        };
        reqLog.error("unhandled error", {
          error_name: e?.name ?? "unknown",
          error_code: e?.code ?? null,
          db_code: e?.meta?.code ?? e?.meta?.driverAdapterError?.cause?.originalCode ?? null,
        });
        code = "internal_error";
        res = errorResponse(new HubError("internal_error", "internal error"));
      }
    }
    if (code === "unauthenticated") {
      const over = await countFailedAuthentication(source);
      if (over) {
        code = over.code;
        res = errorResponse(over);
      }
    }
    res.headers.set("x-request-id", requestId);
    reqLog.info("request", {
      method: req.method,
      path: url.pathname,
      status: res.status,
      code: code ?? null,
      // The client as server/forwarded.ts resolved it: a trusted proxy's X-Forwarded-For, else the peer.
      client_ip: req.headers.get("x-forwarded-for"),
      duration_ms: Math.round(performance.now() - started),
    });
    return res;
  };
}

/**
 * A path or verb the protocol does not serve: the §8.5 envelope `404 not_found`, never the
 * framework's bare 405 or HTML 404 page (found by the fuzzer). Each route file exports it under
 * the verbs it does not implement; the /v1 and /.well-known catch-alls under all of them.
 */
export const noSuchEndpoint = route(async () => {
  throw new HubError("not_found", "no such endpoint");
});
