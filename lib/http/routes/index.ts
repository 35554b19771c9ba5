/**
 * The `/v1` route manifest: the route table (packages/protocol/src/routes.ts) with each operation's
 * handler. Every protocol route is served from here — by Next through its `app/v1/…/route.ts`, which exports
 * `v1RouteModule(folder)` and nothing else, and by the protocol lane (server/protocol-lane.ts) for
 * the routes marked `lane` — so each handler has one definition and one table says who serves what.
 *
 * The verbs a folder does not serve answer the §8.5 `404` envelope (`noSuchEndpoint`), never the
 * framework's bare 405. `OPTIONS` answers `204` with the `Allow` of the path from this table (its
 * methods, `HEAD` with `GET`, and `OPTIONS`) and a path the table does not have the same `404`
 * envelope. `HEAD` is left to Next, which runs the `GET` handler and drops the body: the status and
 * headers of a `GET` (a `404` envelope's where there is no `GET`).
 */
import { noSuchEndpoint, route } from "../handler";
import { HubError } from "@ma2h/protocol/errors";
import { agentSelfRoute, presenceRoute, resumeAgentRoute, stopAgentRoute } from "./agents";
import { authorDirectiveRoute, readDirectiveRoute } from "./directives";
import { drainRoute, inboxAckRoute, streamRoute } from "./inbox";
import { ackResponseRoute, cancelRoute } from "./message-verbs";
import { mcpRoute } from "./mcp";
import { openApiRoute } from "./openapi";
import { pollRoute } from "./poll";
import { resolveRoute } from "./resolve";
import { registerSessionRoute, listSessionsRoute, readSessionRoute, closeSessionRoute } from "./sessions";
import { submitRoute } from "./submit";
import {
  appFolderOf,
  type OperationId,
  templatePattern,
  type V1Method,
  type V1Route,
  V1_ROUTES,
} from "@ma2h/protocol/routes";

export type RouteHandler = typeof noSuchEndpoint;

/**
 * The A2A gateway's handlers (./a2a.ts), loaded with `@a2a-js/sdk` on the gateway's first request:
 * most Hubs never serve A2A, and every web process would otherwise load the SDK at start.
 */
const a2aRoute: RouteHandler = async (req, args) => (await import("./a2a")).a2aRoute(req, args);
const agentCardRoute: RouteHandler = async (req, args) => (await import("./a2a")).agentCardRoute(req, args);

/** A route file's handler that picks among several entries by path; `serves` names them. */
export type Dispatch = RouteHandler & { readonly serves: readonly V1Entry[] };

/** Each operation's handler: the compiler holds this to every operation of the table. */
export const V1_HANDLERS: Readonly<Record<OperationId, RouteHandler>> = {
  submitMessage: submitRoute,
  getMessage: pollRoute,
  resolveMessage: resolveRoute,
  cancelMessage: cancelRoute,
  ackResponse: ackResponseRoute,
  drainInbox: drainRoute,
  streamInbox: streamRoute,
  ackInbox: inboxAckRoute,
  authorDirective: authorDirectiveRoute,
  getDirective: readDirectiveRoute,
  getAgentSelf: agentSelfRoute,
  getPresence: presenceRoute,
  stopAgent: stopAgentRoute,
  resumeAgent: resumeAgentRoute,
  registerSession: registerSessionRoute,
  listSessions: listSessionsRoute,
  getSession: readSessionRoute,
  closeSession: closeSessionRoute,
  getOpenApi: openApiRoute,
};

export interface V1Entry extends V1Route {
  readonly handler: RouteHandler;
  /** The path template over a request's pathname (the `/v1/agents/` dispatch and `OPTIONS`). */
  readonly pattern: RegExp;
}

/** The manifest: every `/v1` route once, with its handler. */
export const V1_MANIFEST: readonly V1Entry[] = V1_ROUTES.map((r) => ({
  ...r,
  handler: V1_HANDLERS[r.operationId],
  pattern: templatePattern(r.path),
}));

/** Every verb an `app/v1` route file exports: the protocol's and the rest, which are 404s. */
export const ROUTE_FILE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type RouteFileMethod = (typeof ROUTE_FILE_METHODS)[number];
export type V1RouteModule = Record<RouteFileMethod, RouteHandler>;

/** The entries a path matches, in table order. */
function entriesAt(entries: readonly V1Entry[], pathname: string): V1Entry[] {
  return entries.filter((e) => e.pattern.test(pathname));
}

/** `Allow` of a path: its methods, `HEAD` with `GET`, and `OPTIONS`; sorted as Next sorted them. */
export function allowOf(methods: readonly V1Method[]): string {
  const all = new Set<string>([...methods, "OPTIONS"]);
  if (all.has("GET")) all.add("HEAD");
  return [...all].sort().join(", ");
}

/**
 * The handler a route file exports under `method`: the entry's own when the folder serves one path
 * with it, a dispatch by path when it serves several (`/v1/agents/…`), else the `404` envelope.
 */
function methodHandler(folder: string, entries: readonly V1Entry[], method: V1Method): RouteHandler {
  const serving = entries.filter((e) => e.method === method);
  const [only] = serving;
  if (only === undefined) return noSuchEndpoint;
  if (serving.length === 1 && !folder.includes("[...")) return only.handler;
  const dispatch: RouteHandler = async (req, args) => {
    const [entry] = entriesAt(serving, new URL(req.url).pathname);
    return (entry?.handler ?? noSuchEndpoint)(req, args);
  };
  return Object.assign(dispatch, { serves: serving });
}

/**
 * What `app/v1/<folder>/route.ts` exports: for each verb, the handler the table gives it there
 * (test/route-manifest.test.ts compares them).
 */
export function v1RouteModule(folder: string): V1RouteModule {
  const entries = V1_MANIFEST.filter((e) => appFolderOf(e.path) === folder);
  const options = route(async ({ url }) => {
    const at = entriesAt(entries, url.pathname);
    if (at.length === 0) throw new HubError("not_found", "no such endpoint");
    return new Response(null, { status: 204, headers: { allow: allowOf(at.map((e) => e.method)) } });
  });
  return {
    GET: methodHandler(folder, entries, "GET"),
    POST: methodHandler(folder, entries, "POST"),
    DELETE: methodHandler(folder, entries, "DELETE"),
    PUT: noSuchEndpoint,
    PATCH: noSuchEndpoint,
    OPTIONS: entries.length === 0 ? noSuchEndpoint : options,
  };
}

/**
 * Beside `/v1`, the manifest serves the Hub's MCP endpoint (docs/mcp.md "Remote"): Streamable HTTP
 * in stateless mode, so `POST` only. `GET` (a server-sent event stream) and `DELETE` (ending a
 * session) are `405` with `Allow`, as the transport says for a server that offers neither; `OPTIONS`
 * is `204` with the same `Allow`. It is no `/v1` route: not in the route table nor the OpenAPI
 * document (MCP describes itself, in `tools/list`).
 */
export const MCP_PATH = "/mcp";
const MCP_ALLOW = "OPTIONS, POST";

const mcpNotAllowed: RouteHandler = async () =>
  new Response(null, { status: 405, headers: { allow: MCP_ALLOW, "cache-control": "no-store" } });

const mcpOptions: RouteHandler = async () => new Response(null, { status: 204, headers: { allow: MCP_ALLOW } });

/** What `app/mcp/route.ts` exports. */
export function mcpRouteModule(): V1RouteModule {
  return {
    POST: mcpRoute,
    GET: mcpNotAllowed,
    DELETE: mcpNotAllowed,
    PUT: mcpNotAllowed,
    PATCH: mcpNotAllowed,
    OPTIONS: mcpOptions,
  };
}

/**
 * The A2A gateway's routes (docs/a2a.md): outside `/v1` and its OpenAPI document, the JSON-RPC
 * binding and the Hub's one Agent Card. `app/a2a/route.ts` and
 * `app/a2a/agent-card/route.ts` (where next.config.ts rewrites the card's path) export `a2aRouteModule(path)`; every other verb there is
 * the §8.5 `404` envelope, as under `/v1`.
 */
export interface A2AEntry {
  readonly method: V1Method;
  readonly path: string;
  readonly credential: "agent" | "none";
  readonly handler: RouteHandler;
}

export const A2A_MANIFEST: readonly A2AEntry[] = [
  { method: "POST", path: "/a2a", credential: "agent", handler: a2aRoute },
  { method: "GET", path: "/.well-known/agent-card.json", credential: "none", handler: agentCardRoute },
];

/** What the route file of an A2A path exports: its entries' handlers, `OPTIONS` with their `Allow`. */
export function a2aRouteModule(path: string): V1RouteModule {
  const entries = A2A_MANIFEST.filter((e) => e.path === path);
  if (entries.length === 0) throw new Error(`no A2A route at ${path}`);
  const handler = (method: V1Method) => entries.find((e) => e.method === method)?.handler ?? noSuchEndpoint;
  const allow = allowOf(entries.map((e) => e.method));
  return {
    GET: handler("GET"),
    POST: handler("POST"),
    DELETE: handler("DELETE"),
    PUT: noSuchEndpoint,
    PATCH: noSuchEndpoint,
    OPTIONS: route(async () => new Response(null, { status: 204, headers: { allow } })),
  };
}
