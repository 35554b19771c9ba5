/**
 * `GET /metrics`: the Prometheus text exposition, answered by the Node server before Next (the web,
 * server/web.ts) or by the worker's own listener (workers/main.ts). It exists only when
 * MA2H_METRICS_TOKEN is set, and then only for `Authorization: Bearer <that token>` — metrics name
 * no secret, but queue depths and traffic shapes are nobody else's business.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { log } from "../log";
import { HubError } from "@ma2h/protocol/errors";
import { credentialsEqual, hashCredential } from "../secrets";
import { type MetricsRole, metrics } from "./registry";

export const METRICS_PATH = "/metrics";

/** True when this request is a scrape this process should answer (the path, GET or HEAD). */
export function isMetricsRequest(req: IncomingMessage): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const url = req.url ?? "";
  return url === METRICS_PATH || url.startsWith(`${METRICS_PATH}?`);
}

/**
 * Both sides hashed first: equal lengths whatever was sent, so the comparison's time says nothing
 * of the token's length or its prefix.
 */
function bearerMatches(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? "";
  const given = /^Bearer (.+)$/i.exec(header)?.[1] ?? "";
  return credentialsEqual(hashCredential(given), hashCredential(token));
}

function answerError(req: IncomingMessage, res: ServerResponse, err: HubError, head: Record<string, string> = {}) {
  const body = JSON.stringify(err.toBody());
  res
    .writeHead(err.status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
      "cache-control": "no-store",
      ...head,
    })
    .end(req.method === "HEAD" ? undefined : body);
}

/**
 * Answers one scrape: 401 without the token; else `refresh` (this process's scrape-time gauges,
 * lib/gauges/) and the exposition of what `role` (the web or a worker) measures. Never rejects: a
 * failure of the registry itself is a 500 (a failing source only reports itself down).
 */
export async function answerScrape(
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  role: MetricsRole,
  refresh: () => Promise<void>,
): Promise<void> {
  if (!bearerMatches(req, token)) {
    const name = role === "worker" ? "MA2H_WORKER_METRICS_TOKEN, else MA2H_METRICS_TOKEN" : "MA2H_METRICS_TOKEN";
    const err = new HubError("unauthenticated", `a scrape needs Authorization: Bearer <${name}>`);
    return answerError(req, res, err, { "www-authenticate": 'Bearer realm="metrics"' });
  }
  try {
    await refresh();
    const registry = metrics().registries[role];
    const text = await registry.metrics();
    res
      .writeHead(200, {
        "content-type": registry.contentType,
        "content-length": String(Buffer.byteLength(text)),
        "cache-control": "no-store",
      })
      .end(req.method === "HEAD" ? undefined : text);
  } catch (err) {
    log.error("metrics scrape failed", { error_name: (err as Error).name });
    if (res.headersSent) res.destroy();
    else answerError(req, res, new HubError("internal_error", "metrics are unavailable"));
  }
}
