/**
 * `ma2h mcp` — the MCP server over stdio (see mcp/server.ts and docs/mcp.md): an MCP client (a
 * coding assistant, a desktop agent) spawns it and calls ask_human, check_answer, notify_human,
 * cancel_ask and read_directives. stdout is the protocol channel, so nothing else is printed there;
 * it runs until the client closes stdin.
 */
import type { CommandSpec, Parsed } from "./args";
import { EXIT, type ExitCode } from "./exit-codes";
import { CliFailure } from "./output";
import { CONNECTION_FLAGS, connect, STORE_FLAG } from "./settings";

export const mcpSpec: CommandSpec = {
  name: "mcp",
  summary: "Serve the Model Context Protocol over stdio (ask_human, check_answer, read_directives, …).",
  positionals: [],
  flags: { ...CONNECTION_FLAGS, ...STORE_FLAG },
};

/** The MCP SDK is an optional peer dependency of the package (the library does not need it). */
export const MCP_SDK = "@modelcontextprotocol/sdk";

export async function mcp(args: Parsed): Promise<ExitCode> {
  const { client } = connect(args);
  const { runMcpServer } = await import("../mcp/server").catch((err: NodeJS.ErrnoException) => {
    if (err?.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes(MCP_SDK))
      throw new CliFailure(
        EXIT.usage,
        "mcp_sdk_missing",
        `ma2h mcp needs ${MCP_SDK}, an optional peer dependency of @ma2h/agent: install it next to the package (npm install ${MCP_SDK}@^1.32.2)`,
      );
    throw err;
  });
  await runMcpServer({ client });
  return EXIT.ok;
}
