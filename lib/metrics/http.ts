/**
 * The per-request HTTP metric, recorded by the Node server (server/web.ts) for every request that
 * reaches it, Next's or not. On the hot path, so it allocates next to nothing: a timestamp, the
 * route template and method on the response, one shared `close` listener, and the counts kept as
 * plain numbers (lib/metrics/tally.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { metrics } from "./registry";

/**
 * Route templates, most frequent first. Ids, tokens and account slugs become `:name`; a path no
 * route serves is `other` (or `/v1/*`, `/.well-known/*`), so a scanner cannot grow the label set.
 */
const ROUTES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/v1\/messages\/[^/]+$/, "/v1/messages/:id"],
  [/^\/v1\/messages$/, "/v1/messages"],
  [/^\/v1\/messages\/[^/]+\/resolve$/, "/v1/messages/:id/resolve"],
  [/^\/v1\/messages\/[^/]+\/ack$/, "/v1/messages/:id/ack"],
  [/^\/v1\/messages\/[^/]+\/cancel$/, "/v1/messages/:id/cancel"],
  [/^\/v1\/inbox$/, "/v1/inbox"],
  [/^\/v1\/inbox\/ack$/, "/v1/inbox/ack"],
  [/^\/v1\/directives$/, "/v1/directives"],
  [/^\/v1\/directives\/[^/]+$/, "/v1/directives/:id"],
  [/^\/v1\/agents\/.+\/presence$/, "/v1/agents/:agent_id/presence"],
  [/^\/v1\/agents\/.+\/stop$/, "/v1/agents/:agent_id/stop"],
  [/^\/v1\/agents\/.+\/resume$/, "/v1/agents/:agent_id/resume"],
  [/^\/v1\/sessions$/, "/v1/sessions"],
  [/^\/v1\/sessions\/[^/]+$/, "/v1/sessions/:id"],
  [/^\/v1\/openapi\.json$/, "/v1/openapi.json"],
  [/^\/v1(\/|$)/, "/v1/*"],
  [/^\/a2a$/, "/a2a"],
  [/^\/\.well-known\/ma2h$/, "/.well-known/ma2h"],
  [/^\/\.well-known\/ma2h-capability$/, "/.well-known/ma2h-capability"],
  [/^\/\.well-known\/ma2h-keys$/, "/.well-known/ma2h-keys"],
  [/^\/\.well-known\/ma2h-audit-keys$/, "/.well-known/ma2h-audit-keys"],
  [/^\/\.well-known\/agent-card\.json$/, "/.well-known/agent-card.json"],
  [/^\/\.well-known(\/|$)/, "/.well-known/*"],
  [/^\/inbox\/events$/, "/inbox/events"],
  [/^\/_next\//, "/_next/*"],
  [/^\/mcp$/, "/mcp"],
  [/^\/healthz$/, "/healthz"],
  [/^\/readyz$/, "/readyz"],
  [/^\/metrics$/, "/metrics"],
  [/^\/api\/auth\//, "/api/auth/*"],
  [/^\/api\/push\//, "/api/push/*"],
  [/^\/api\/slack\/interactions\/[^/]+$/, "/api/slack/interactions/:account"],
  [/^\/e\/[^/]+$/, "/e/:token"],
  [/^\/slack\/bind\/[^/]+$/, "/slack/bind/:token"],
  [/^\/api\/teams\/messages\/[^/]+$/, "/api/teams/messages/:account"],
  [/^\/teams\/bind\/[^/]+$/, "/teams/bind/:token"],
  [/^\/admin\/[^/]+\/audit\/export$/, "/admin/:account/audit/export"],
  [/^\/inbox(\/|$)/, "/inbox/*"],
  [/^\/admin(\/|$)/, "/admin/*"],
  [/^\/settings(\/|$)/, "/settings/*"],
  [/^\/signin(\/|$)/, "/signin"],
  [/^\/$/, "/"],
];

/** The route template of a request-target (path and query), for labels. */
export function routeTemplate(target: string): string {
  const q = target.indexOf("?");
  const path = q === -1 ? target : target.slice(0, q);
  for (const [pattern, template] of ROUTES) if (pattern.test(path)) return template;
  return "other";
}

/** The methods some route serves (server/request-guard.ts answers any other with a 404). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The status label of a response closed before its last byte: the client went away (an aborted
 * long-poll, a closed inbox tab). 499 is nginx's code for it, familiar from proxy dashboards.
 */
const CLIENT_GONE = 499;

const STARTED = Symbol("ma2h.metrics.started");
const ROUTE = Symbol("ma2h.metrics.route");
const METHOD = Symbol("ma2h.metrics.method");
type Timed = ServerResponse & { [STARTED]?: number; [ROUTE]?: string; [METHOD]?: string };

function onClose(this: Timed): void {
  const started = this[STARTED];
  if (started === undefined) return;
  const status = this.writableFinished ? this.statusCode : CLIENT_GONE;
  metrics().http.observe(this[ROUTE] as string, this[METHOD] as string, status, (performance.now() - started) / 1000);
}

/**
 * Call first thing for every request: its route, method, status and duration are counted when the
 * response closes. The route is read now, from the target as the client sent it (Next rewrites
 * `req.url` on the way, e.g. `/.well-known/*`).
 */
export function observeRequest(req: IncomingMessage, res: ServerResponse): void {
  const timed = res as Timed;
  timed[STARTED] = performance.now();
  timed[ROUTE] = routeTemplate(req.url ?? "/");
  timed[METHOD] = METHODS.has(req.method ?? "") ? (req.method as string) : "other";
  res.on("close", onClose);
}
