/**
 * The `/v1` route table: every protocol route once — its method, path template, the credential it
 * takes, its operation (the key of its handler in lib/http/routes/index.ts and of its OpenAPI
 * operation in lib/openapi/document.ts) and whether the protocol lane (server/protocol-lane.ts)
 * serves it past Next's router. Pure data, no I/O: the OpenAPI document reads it without loading a
 * handler.
 *
 * What derives from it: the exports of each `app/v1/…/route.ts` (`v1RouteModule`,
 * lib/http/routes/index.ts), the lane's matcher, the OpenAPI `paths` and their `security`.
 * test/route-manifest.test.ts holds the route files and the document to it.
 */

/** The methods the protocol serves somewhere; every other verb is the §8.5 `404` envelope. */
export type V1Method = "GET" | "POST" | "DELETE";

/**
 * Which credential a route takes (lib/http/callers.ts): an agent key, a person's PAT (or the inbox's
 * same-origin session cookie), either, or none.
 */
export type Credential = "agent" | "person" | "agent or person" | "none";

export type OperationId =
  | "submitMessage"
  | "getMessage"
  | "resolveMessage"
  | "cancelMessage"
  | "ackResponse"
  | "drainInbox"
  | "streamInbox"
  | "ackInbox"
  | "authorDirective"
  | "getDirective"
  | "getAgentSelf"
  | "getPresence"
  | "stopAgent"
  | "resumeAgent"
  | "registerSession"
  | "listSessions"
  | "getSession"
  | "closeSession"
  | "getOpenApi";

export interface V1Route {
  readonly method: V1Method;
  /** The OpenAPI path template: `{name}` is one path parameter. */
  readonly path: string;
  readonly credential: Credential;
  readonly operationId: OperationId;
  /** Served by the protocol lane (server/protocol-lane.ts) when its id segments are plain. */
  readonly lane: boolean;
}

const r = (
  method: V1Method,
  path: string,
  credential: Credential,
  operationId: OperationId,
  lane = false,
): V1Route => ({
  method,
  path,
  credential,
  operationId,
  lane,
});

/** In OpenAPI order. Where two templates could match one path, the first listed wins (`/v1/agents/me`). */
export const V1_ROUTES: readonly V1Route[] = [
  r("POST", "/v1/messages", "agent", "submitMessage", true),
  r("GET", "/v1/messages/{id}", "agent", "getMessage", true),
  r("POST", "/v1/messages/{id}/resolve", "agent or person", "resolveMessage", true),
  r("POST", "/v1/messages/{id}/cancel", "agent", "cancelMessage"),
  r("POST", "/v1/messages/{id}/ack", "agent", "ackResponse"),
  r("GET", "/v1/inbox", "agent", "drainInbox"),
  r("GET", "/v1/inbox/stream", "agent", "streamInbox"),
  r("POST", "/v1/inbox/ack", "agent", "ackInbox"),
  r("POST", "/v1/directives", "person", "authorDirective"),
  r("GET", "/v1/directives/{id}", "person", "getDirective"),
  r("GET", "/v1/agents/me", "agent", "getAgentSelf"),
  r("GET", "/v1/agents/{agent_id}/presence", "person", "getPresence"),
  r("POST", "/v1/agents/{agent_id}/stop", "person", "stopAgent"),
  r("POST", "/v1/agents/{agent_id}/resume", "person", "resumeAgent"),
  r("POST", "/v1/sessions", "agent", "registerSession"),
  r("GET", "/v1/sessions", "agent or person", "listSessions"),
  r("GET", "/v1/sessions/{id}", "agent or person", "getSession"),
  r("DELETE", "/v1/sessions/{id}", "agent or person", "closeSession"),
  r("GET", "/v1/openapi.json", "none", "getOpenApi"),
];

/**
 * The App Router folder under `app/v1/` that serves a template. Agent ids contain `/` (§15.3), so
 * everything under `/v1/agents/` is one catch-all that reads the id from the raw path; elsewhere
 * `{name}` is the dynamic segment `[name]`.
 */
export function appFolderOf(path: string): string {
  if (path.startsWith("/v1/agents/")) return "agents/[...path]";
  return path.slice("/v1/".length).replace(/\{([a-z_]+)\}/g, "[$1]");
}

/**
 * The template as a pattern over a request's pathname. `{agent_id}` spans `/` and may be
 * percent-encoded (the handler decodes it, lib/presence/read.ts), with the optional trailing slash
 * the agent routes always took; any other `{name}` is one segment of `segment` characters.
 */
export function templatePattern(path: string, segment = "[^/]+"): RegExp {
  const agentRoute = path.includes("{agent_id}");
  const body = path
    .split(/(\{[a-z_]+\})/)
    .map((part) =>
      part.startsWith("{")
        ? part === "{agent_id}"
          ? "(.+)"
          : `(${segment})`
        : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${body}${agentRoute ? "/?" : ""}$`, "u");
}

/** The parameter names of a template, in order. */
export function templateParams(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as string);
}
