/**
 * `ma2h mcp` — the MCP server over stdio (see mcp/server.ts and docs/mcp.md): an MCP client (a
 * coding assistant, a desktop agent) spawns it and calls ask_human, check_answer, notify_human,
 * cancel_ask and read_directives. stdout is the protocol channel, so nothing else is printed there;
 * it runs until the client closes stdin.
 */
import type { CommandSpec, Parsed } from "./args";
import { EXIT, type ExitCode } from "./exit-codes";
import { CONNECTION_FLAGS, connect, STORE_FLAG } from "./settings";

export const mcpSpec: CommandSpec = {
  name: "mcp",
  summary: "Serve the Model Context Protocol over stdio (ask_human, check_answer, read_directives, …).",
  positionals: [],
  flags: { ...CONNECTION_FLAGS, ...STORE_FLAG },
};

export async function mcp(args: Parsed): Promise<ExitCode> {
  const { client } = connect(args);
  const { runMcpServer } = await import("../mcp/server");
  await runMcpServer({ client });
  return EXIT.ok;
}
