import { agentCaller, humanCaller, humanReader } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { agentPathId, presenceAccountParam, presenceForHuman, presencePathAgentId } from "@/lib/presence/read";
import { agentSelf } from "@/lib/principals/agent-self";
import { HubError } from "@/lib/protocol/errors";
import { stopOrResume } from "@/lib/sessions/access";

export const dynamic = "force-dynamic";

/**
 * `GET /v1/agents/me` (this Hub's, docs/api.md): the calling agent's push signing key id and its
 * account's inter-agent state — an agent credential only.
 *
 * §15.3 `GET /v1/agents/{agent_id}/presence?account=<slug>`. A catch-all, because agent ids contain
 * `/`: the id is read from the raw path, so `%2F` and a literal `/` both work. The account names
 * whose agent this is (lib/presence/read.ts).
 */
export const GET = route(async ({ req, url }) => {
  if (url.pathname === "/v1/agents/me") return json(await agentSelf(await agentCaller(req)));
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
export const POST = route(async ({ req, url }) => {
  const stop = agentPathId(url.pathname, "stop");
  const resume = stop === null ? agentPathId(url.pathname, "resume") : null;
  if (stop === null && resume === null) throw new HubError("not_found", "no such endpoint");
  const { userId } = await humanCaller(req);
  const account = presenceAccountParam(url);
  return json(await stopOrResume(userId, (stop ?? resume) as string, account, stop !== null ? "stop" : "resume"));
});

/** Any other verb under /v1/agents: the §8.5 envelope rather than an HTML page. */
export { noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
