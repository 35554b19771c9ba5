/**
 * The MA2H MCP server: the tools an MCP-capable agent calls to reach a person through the Hub
 * (ask_human, check_answer, cancel_ask, notify_human, read_directives), over stdio. The tools'
 * definitions are @ma2h/protocol/mcp-tools, the ones the Hub's `/mcp` registers too. Every tool
 * failure is a tool error carrying the §8.5 code (tool-error.ts); the server itself keeps serving.
 */
import type { Readable, Writable } from "node:stream";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Ma2hClient } from "../client";
import { askHuman, cancelAsk, checkAnswer, notifyHuman } from "./ask-tools";
import { DirectiveReader } from "./directive-tools";
import { MCP_INSTRUCTIONS, MCP_SERVER_NAME, MCP_SERVER_VERSION, mcpTools } from "@ma2h/protocol/mcp-tools";
import { defaultWaitSeconds, MAX_WAIT_SECONDS } from "./schemas";
import { sdkToolError, toolError } from "./tool-error";

async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    return toolError(err);
  }
}

export interface CreateMcpServerOptions {
  /** ask_human's wait when the call names none (default: MA2H_MCP_WAIT_SECONDS, else 120; at most 600). */
  defaultWaitSeconds?: number;
}

/** The server with its tools registered, not yet connected (connect it to any MCP transport). */
export function createMcpServer(client: Ma2hClient, options: CreateMcpServerOptions = {}): McpServer {
  const defaultWait = Math.min(Math.max(options.defaultWaitSeconds ?? defaultWaitSeconds(), 0), MAX_WAIT_SECONDS);
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { instructions: MCP_INSTRUCTIONS, capabilities: { tools: {} } },
  );
  const directives = new DirectiveReader(client);
  // The SDK answers a call it refuses itself (strict input schema, unknown tool) with its bare
  // message; the one place it builds that result is this method (TypeScript-private, so set on the
  // instance): ours gives it the `MA2H error <code>` start every tool error has.
  (server as unknown as { createToolError(message: string): CallToolResult }).createToolError = sdkToolError;

  const tools = mcpTools({ defaultWait, maxWait: MAX_WAIT_SECONDS });
  server.registerTool("ask_human", tools.ask_human, (args, extra) =>
    guarded(() => askHuman(client, args, extra, defaultWait)),
  );
  server.registerTool("check_answer", tools.check_answer, (args, extra) =>
    guarded(() => checkAnswer(client, args, extra)),
  );
  server.registerTool("cancel_ask", tools.cancel_ask, (args, extra) => guarded(() => cancelAsk(client, args, extra)));
  server.registerTool("notify_human", tools.notify_human, (args) => guarded(() => notifyHuman(client, args)));
  server.registerTool("read_directives", tools.read_directives, (args, extra) =>
    guarded(() => directives.read(args, extra)),
  );

  return server;
}

export interface McpServerOptions extends CreateMcpServerOptions {
  client: Ma2hClient;
  stdin?: Readable;
  stdout?: Writable;
  /** Resolves the returned promise and closes the server when aborted. */
  signal?: AbortSignal;
}

/**
 * Serves MCP over stdio until the client closes the connection (stdin ends) or `signal` aborts.
 * Nothing but protocol messages is written to stdout.
 */
export async function runMcpServer(options: McpServerOptions): Promise<void> {
  const server = createMcpServer(options.client, options);
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const close = () => void server.close().catch(() => {});
  // The stdio transport does not watch for the end of its input: the client going away ends us.
  stdin.once("end", close);
  if (options.signal?.aborted) return;
  options.signal?.addEventListener("abort", close, { once: true });
  await server.connect(transport);
  await closed;
}
