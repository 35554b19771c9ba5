/**
 * MCP tasks (revision 2025-11-25) over the messages table: an ask_human task is its MA2H message —
 * the task id is the message id, the status is read from the message's row, the result is built
 * from its signed Response, and a cancel is the §8.4 cancel. Nothing lives in memory, so a task
 * survives a restart and any web process answers for it. One store per request, bound to the
 * calling agent: another agent's message id is an unknown task.
 *
 * Status: `working` while the message is open (statusMessage "waiting for a person at the Hub");
 * `completed` once it is terminal, whatever the resolution — declined, cancelled and expired are
 * results that say so, as ask_human's results do without a task. `failed` is left to a JSON-RPC
 * error; the store never reports it.
 */
import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import type { Result, Task } from "@modelcontextprotocol/sdk/types.js";
import { isHubError } from "@ma2h/protocol/errors";
import { db } from "../db";
import { cancelMessage } from "../messages/cancel";
import { current } from "../messages/read";
import type { MessageWithResolution } from "../messages/record";
import { readOutcome, type ToolContext } from "./tools";

export const TASK_STATUS_MESSAGE = "waiting for a person at the Hub";
/** How often a client should poll `tasks/get` (milliseconds): a person answers in seconds at best. */
export const TASK_POLL_INTERVAL_MS = 2000;
const LIST_PAGE = 50;

function taskOf(
  row: Pick<MessageWithResolution, "id" | "status" | "createdAt" | "statusChangedAt" | "expiresAt">,
): Task {
  const open = row.status === "open";
  return {
    taskId: row.id,
    status: open ? "working" : "completed",
    ...(open ? { statusMessage: TASK_STATUS_MESSAGE } : {}),
    createdAt: row.createdAt.toISOString(),
    lastUpdatedAt: row.statusChangedAt.toISOString(),
    // The task lives as long as the question may: its expiry, else until it is resolved.
    ttl: row.expiresAt ? Math.max(row.expiresAt.getTime() - row.createdAt.getTime(), 0) : null,
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
}

/** The task view of the agent's own ask; null for an unknown id (another agent's, a notify, gone). */
export async function taskOfMessage(ctx: ToolContext, id: string): Promise<Task | null> {
  try {
    const row = await current(ctx.principal, id);
    return row.type === "ask" ? taskOf(row) : null;
  } catch (err) {
    if (isHubError(err) && (err.code === "not_found" || err.code === "gone")) return null;
    throw err;
  }
}

export class MessageTaskStore implements TaskStore {
  readonly #ctx: ToolContext;

  constructor(ctx: ToolContext) {
    this.#ctx = ctx;
  }

  /** Never called: ask_human's createTask submits the ask, whose id is the task's (lib/mcp/server.ts). */
  async createTask(_params: CreateTaskOptions): Promise<Task> {
    throw new Error("a task is created by submitting an ask");
  }

  getTask(taskId: string): Promise<Task | null> {
    return taskOfMessage(this.#ctx, taskId);
  }

  /** The terminal message's tool result — a read that delivers the answer (§14.2), as a pull does. */
  async getTaskResult(taskId: string): Promise<Result> {
    return (await readOutcome(this.#ctx, taskId, 0)) as Result;
  }

  /** Results are never stored: they are the messages' Responses. */
  async storeTaskResult(): Promise<void> {
    throw new Error("a task's result is its message's Response");
  }

  /** `tasks/cancel` → §8.4 cancel of the open ask. Nothing else changes a task's status. */
  async updateTaskStatus(taskId: string, status: Task["status"]): Promise<void> {
    if (status !== "cancelled") throw new Error(`a task's status follows its message (not ${status})`);
    await cancelMessage(this.#ctx.principal, taskId);
  }

  /** The agent's open asks, newest first; the cursor is the last page's oldest id. */
  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const rows = await db().message.findMany({
      where: { agentRowId: this.#ctx.principal.agentRowId, type: "ask", status: "open", toAddress: null },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true, status: true, createdAt: true, statusChangedAt: true, expiresAt: true },
      take: LIST_PAGE + 1,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    const page = rows.slice(0, LIST_PAGE);
    const last = page.at(-1);
    return { tasks: page.map(taskOf), ...(rows.length > LIST_PAGE && last ? { nextCursor: last.id } : {}) };
  }
}
