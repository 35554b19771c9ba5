/**
 * The handlers under `/v1/agents/` (the route table, packages/protocol/src/routes.ts). Agent ids contain `/`, so each
 * reads the id from the raw path: `%2F` and a literal `/` both work; the account (`?account=`)
 * names whose agent this is (lib/presence/read.ts).
 */
import { agentCaller, humanCaller, humanReader } from "../callers";
import { json, route } from "../handler";
import { agentPathId, presenceAccountParam, presenceForHuman, presencePathAgentId } from "../../presence/read";
import { agentSelf } from "../../principals/agent-self";
import { HubError } from "@ma2h/protocol/errors";
import { stopOrResume } from "../../sessions/access";

/**
 * `GET /v1/agents/me` (this Hub's, docs/api.md): the calling agent's push signing key id and its
 * account's inter-agent state — an agent credential only.
 */
export const agentSelfRoute = route(async ({ req }) => json(await agentSelf(await agentCaller(req))));

/** §15.3 `GET /v1/agents/{agent_id}/presence?account=<slug>`. */
export const presenceRoute = route(async ({ req, url }) => {
  const agentId = presencePathAgentId(url.pathname);
  if (agentId === null) throw new HubError("not_found", "no such endpoint");
  const human = await humanReader(req);
  return json(await presenceForHuman(human.userId, agentId, presenceAccountParam(url)));
});

/**
 * §16.4.1 `POST /v1/agents/{agent_id}/stop` and `/resume` (`?account=<slug>`): a person's hard stop
 * and its lifting — an owner or admin by PAT or browser session. An agent credential is `403`
 * whatever it asks (humanCaller): nothing resume-like exists on an agent surface.
 */
function stopOrResumeRoute(verb: "stop" | "resume") {
  return route(async ({ req, url }) => {
    const agentId = agentPathId(url.pathname, verb);
    if (agentId === null) throw new HubError("not_found", "no such endpoint");
    const { userId } = await humanCaller(req);
    return json(await stopOrResume(userId, agentId, presenceAccountParam(url), verb));
  });
}

export const stopAgentRoute = stopOrResumeRoute("stop");
export const resumeAgentRoute = stopOrResumeRoute("resume");
