/**
 * The handler of `POST /mcp`, the Hub's MCP endpoint (docs/mcp.md "Remote"; lib/mcp/server.ts):
 * the agent's API key as a bearer token (or `X-API-Key`), `401` otherwise — the §8.5 envelope, and
 * no OAuth discovery: no protected-resource metadata is published (docs/mcp.md). The body is read
 * as any `/v1` body is (`max_body_bytes`); the JSON-RPC itself is the MCP SDK's.
 */
import { agentCaller } from "../callers";
import { route } from "../handler";

export const mcpRoute = route(async ({ req, body }) => {
  const principal = await agentCaller(req);
  // The MCP SDK loads on the first MCP request, not with every web process at its start.
  const { serveMcp } = await import("../../mcp/server");
  return serveMcp(principal, req, await body());
});
