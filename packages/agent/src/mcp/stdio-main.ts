/** A standalone entry for the MCP server (tests spawn it; `ma2h mcp` is the packaged one): MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID. */
import { Ma2hClient } from "../client";
import { runMcpServer } from "./server";

await runMcpServer({ client: Ma2hClient.fromEnv() });
