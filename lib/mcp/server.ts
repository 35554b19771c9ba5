/**
 * The Hub's MCP endpoint (`/mcp`, docs/mcp.md "Remote"): Streamable HTTP in stateless mode — no
 * `Mcp-Session-Id`, a fresh SDK server and transport for every POST, JSON answers (no SSE stream) —
 * so any web process serves any request; whatever must outlive a request is a message in the
 * database. The caller is the agent whose API key the route authenticated (lib/http/routes/mcp.ts).
 *
 * The five tools are @ma2h/protocol/mcp-tools, the definitions `ma2h mcp` registers too, with the
 * Hub's waits: ask_human's `wait_seconds` defaults to and is capped at `max_wait_seconds`.
 * ask_human also takes the 2025-11-25 task augmentation (`params.task`): it then answers at once
 * with a task whose id is the message id (task-store.ts), and `tasks/result` holds, one
 * `max_wait_seconds` long-poll after another, until the person has answered.
 */
import type { TaskRequestHandlerExtra } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  ErrorCode,
  GetTaskPayloadRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
import { toolErrorResult } from "@ma2h/protocol/mcp-outcome";
import {
  type AskHumanInput,
  MCP_INSTRUCTIONS,
  MCP_SERVER_NAME,
  MCP_SERVER_VERSION,
  type McpToolResult,
  mcpTools,
} from "@ma2h/protocol/mcp-tools";
import { isHubError } from "@ma2h/protocol/errors";
import { limits } from "../env";
import type { AgentPrincipal } from "../principals/types";
import { MessageTaskStore, taskOfMessage } from "./task-store";
import {
  askAndWait,
  cancelAsk,
  checkAnswer,
  guarded,
  hubToolError,
  notifyHuman,
  readDirectives,
  readOutcome,
  submitAsk,
  type ToolContext,
} from "./tools";

/** The SDK's refusal of a call (strict input schema, unknown tool) with the `MA2H error <code>` start. */
function sdkToolError(message: string): McpToolResult {
  if (message.startsWith("MA2H error ")) return { isError: true, content: [{ type: "text", text: message }] };
  return toolErrorResult("validation_error", "refused before anything was asked", message);
}

type ToolEntry = { handler: unknown };
type RawHandler = (request: { params?: { task?: unknown } }, extra: unknown) => Promise<unknown>;
type Internals = {
  createToolError(message: string): McpToolResult;
  validateToolInput(tool: ToolEntry, args: unknown, name: string): Promise<unknown>;
  handleAutomaticTaskPolling(
    tool: ToolEntry,
    request: { params: { name: string; arguments?: unknown } },
  ): Promise<unknown>;
};

/** The server for one request of `principal`, its tools bound to it. */
export function createHubMcpServer(principal: AgentPrincipal, signal: AbortSignal): McpServer {
  const ctx: ToolContext = { principal, signal };
  const maxWait = limits().maxWaitSeconds;
  const tools = mcpTools({ defaultWait: maxWait, maxWait });
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    {
      instructions: MCP_INSTRUCTIONS,
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: new MessageTaskStore(ctx),
    },
  );
  const internals = server as unknown as Internals;
  // As in `ma2h mcp`: the SDK's own refusals read `MA2H error <code>` (TypeScript-private, so set
  // on the instance; these internals are those of the pinned SDK, 1.32.2). A server answers one
  // request (stateless), so the last tool error is this request's.
  let lastToolError: McpToolResult | null = null;
  internals.createToolError = (message) => {
    lastToolError = sdkToolError(message);
    return lastToolError;
  };
  // A call of ask_human without a task: the SDK would poll the task until it ends, however long
  // that takes; ours holds at most the call's wait (≤ max_wait_seconds), then returns the id.
  internals.handleAutomaticTaskPolling = async (tool, request) => {
    const args = (await internals.validateToolInput(
      tool,
      request.params.arguments,
      request.params.name,
    )) as AskHumanInput;
    return guarded(() => askAndWait(ctx, args, args.wait_seconds ?? maxWait));
  };

  server.experimental.tasks.registerToolTask(
    "ask_human",
    { ...tools.ask_human, execution: { taskSupport: "optional" } },
    {
      createTask: async (args: unknown) => {
        let id: string;
        try {
          id = await submitAsk(ctx, args as AskHumanInput);
        } catch (err) {
          // The SDK answers a throw here with a tool error of the message: ours, with its §8.5 code.
          throw new Error(
            hubToolError(err)
              .content.map((c) => c.text)
              .join("\n"),
          );
        }
        const task = await taskOfMessage(ctx, id);
        if (task === null) throw new McpError(ErrorCode.InternalError, "the ask just submitted is not readable");
        return { task };
      },
      getTask: async (_args: unknown, extra: TaskRequestHandlerExtra) => {
        const task = await taskOfMessage(ctx, extra.taskId);
        if (task === null) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${extra.taskId}`);
        return task;
      },
      getTaskResult: async (_args: unknown, extra: TaskRequestHandlerExtra) =>
        (await readOutcome(ctx, extra.taskId, 0)) as never,
    },
  );
  server.registerTool("check_answer", tools.check_answer, (args) => guarded(() => checkAnswer(ctx, args)));
  server.registerTool("cancel_ask", tools.cancel_ask, (args) => guarded(() => cancelAsk(ctx, args)));
  server.registerTool("notify_human", tools.notify_human, (args) => guarded(() => notifyHuman(ctx, args)));
  server.registerTool("read_directives", tools.read_directives, (args) => guarded(() => readDirectives(ctx, args)));

  // A task-augmented call that creates no task (the Hub refused the question, or the SDK refused its
  // arguments) is a JSON-RPC error naming the code: a task request's answer is a task or an error.
  // The SDK turns the refusal into a tool error, which its own check then refuses as no task: the
  // error keeps the tool error's text.
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, RawHandler> })._requestHandlers;
  const callTool = handlers.get("tools/call");
  if (callTool)
    handlers.set("tools/call", async (request, extra) => {
      try {
        return await callTool(request, extra);
      } catch (err) {
        const refused = lastToolError as McpToolResult | null;
        if (request.params?.task === undefined || refused === null) throw err;
        const message = refused.content.map((c) => c.text).join("\n");
        const invalid = /^MA2H error (validation_error|invalid_field)\b/u.test(message);
        throw new McpError(invalid ? ErrorCode.InvalidParams : ErrorCode.InternalError, message);
      }
    });

  // `tasks/result` blocks until the task is terminal: here one long-poll of max_wait_seconds after
  // another (each a slot of the parked cap while parked), never a poll loop in memory; the client
  // hanging up ends it. Replaces the SDK's handler, which polls its store every second.
  server.server.setRequestHandler(GetTaskPayloadRequestSchema, async (request) => {
    const { taskId } = request.params;
    if ((await taskOfMessage(ctx, taskId)) === null)
      throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    for (;;) {
      const started = Date.now();
      let outcome: McpToolResult;
      try {
        outcome = await readOutcome(ctx, taskId, maxWait);
      } catch (err) {
        if (isHubError(err)) throw new McpError(ErrorCode.InternalError, `MA2H error ${err.code}: ${err.message}`);
        throw err;
      }
      const open = outcome.structuredContent?.answered === false && outcome.structuredContent?.status === "open";
      if (!open || signal.aborted) return { ...outcome, _meta: { [RELATED_TASK_META_KEY]: { taskId } } };
      // A hold that ended early with the question still open (the process is shutting down) ends
      // the call rather than spinning: the client polls tasks/get and asks again.
      if (Date.now() - started < (maxWait * 1000) / 2)
        throw new McpError(
          ErrorCode.InternalError,
          "MA2H error unavailable: the Hub could not hold this request; retry",
        );
    }
  });
  return server;
}

/**
 * One `/mcp` POST: its JSON-RPC body (already read within `max_body_bytes`) through a stateless
 * transport, answered as JSON. The server and transport are closed once the answer is built.
 */
export async function serveMcp(principal: AgentPrincipal, req: Request, body: unknown): Promise<Response> {
  const server = createHubMcpServer(principal, req.signal);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(req, { parsedBody: body });
  } finally {
    await server.close().catch(() => {});
  }
}
