import { humanReader } from "@/lib/http/callers";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { presenceAccountParam, presenceForHuman, presencePathAgentId } from "@/lib/presence/read";
import { HubError } from "@/lib/protocol/errors";

export const dynamic = "force-dynamic";

/**
 * §15.3 `GET /v1/agents/{agent_id}/presence?account=<slug>`. A catch-all, because agent ids contain
 * `/`: the id is read from the raw path, so `%2F` and a literal `/` both work. The account names
 * whose agent this is (lib/presence/read.ts).
 */
export const GET = route(async ({ req, url }) => {
  const agentId = presencePathAgentId(url.pathname);
  if (agentId === null) throw new HubError("not_found", "no such endpoint");
  const human = await humanReader(req);
  return json(await presenceForHuman(human.userId, agentId, presenceAccountParam(url)));
});

/** Any other verb under /v1/agents: the §8.5 envelope rather than an HTML page. */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
