/**
 * The A2A task store, backed by the messages table (docs/a2a.md): a task IS its MA2H message, read
 * as the submitting agent reads it over §8.2 — so the submitter binding (§9.1: another agent's or
 * account's message is the same not-found as an unknown id), expiry on read, presence and the §14.2
 * pull delivery stamp all apply. Nothing about a task is stored beside its message.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from "@a2a-js/sdk";
import { TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import { HubError, isHubError } from "@ma2h/protocol/errors";
import { type ResponseSigningBody, signResponsePush } from "@ma2h/protocol/signing";
import { clock } from "../clock";
import { db } from "../db";
import { accountSigningKey } from "../keys/signing-keys";
import { readMessage, type ReadOptions } from "../messages/read";
import type { AgentPrincipal } from "../principals/types";
import { a2aEndpoint } from "./card";
import { type SignedResponse, taskOf } from "./mapping";

/** The key under which the request's principal travels in `ServerCallContext.state`. */
export const PRINCIPAL_KEY = "ma2h.principal";
export const SIGNAL_KEY = "ma2h.signal";

export function principalOf(context: ServerCallContext): AgentPrincipal {
  const p = context.state.get(PRINCIPAL_KEY) as AgentPrincipal | undefined;
  // The route authenticates before the transport runs; a context without one is a wiring fault.
  if (!p) throw new HubError("unauthenticated", "an agent API key is required");
  return p;
}

export function signalOf(context: ServerCallContext): AbortSignal | undefined {
  return context.state.get(SIGNAL_KEY) as AbortSignal | undefined;
}

/**
 * A signer of the §6 Response for the task's artifact: a §9.2 `MA2H-Signature` under the account's
 * ed25519 push key, bound to the gateway's URL as its `callback_url`, made when the task is served.
 */
export async function responseSigner(
  accountId: string,
): Promise<(response: Record<string, unknown>) => SignedResponse> {
  const { privateKey } = await accountSigningKey(accountId);
  const signedFor = a2aEndpoint();
  return (response) => {
    const { header } = signResponsePush({
      response: response as unknown as ResponseSigningBody,
      callbackUrl: signedFor,
      key: { alg: "ed25519", privateKey },
      now: clock.now(),
    });
    return { signature: header, signedFor };
  };
}

/**
 * The envelope an earlier submit with this idempotency key stored (its `created_at` and
 * `agent.run_id`), or null: a resent A2A message replays it instead of asking twice.
 */
export async function priorSubmit(
  principal: AgentPrincipal,
  idempotencyKey: string,
): Promise<{ createdAt: Date; runId: string | undefined } | null> {
  const record = await db().idempotencyRecord.findUnique({
    where: { agentRowId_idempotencyKey: { agentRowId: principal.agentRowId, idempotencyKey } },
    select: { messageId: true },
  });
  const message = record
    ? await db().message.findUnique({ where: { id: record.messageId }, select: { envelope: true } })
    : null;
  if (!message) return null;
  const envelope = JSON.parse(message.envelope) as { created_at?: unknown; agent?: { run_id?: unknown } };
  const createdAt = typeof envelope.created_at === "string" ? new Date(envelope.created_at) : null;
  if (!createdAt || Number.isNaN(createdAt.getTime())) return null;
  const runId = typeof envelope.agent?.run_id === "string" ? envelope.agent.run_id : undefined;
  return { createdAt, runId };
}

/** The §8.2 body of a task, as its submitter reads it; unknown, foreign or purged → TaskNotFound. */
export async function readTaskBody(
  principal: AgentPrincipal,
  id: string,
  options: ReadOptions = {},
): Promise<Record<string, unknown>> {
  try {
    const result = await readMessage(principal, id, options);
    // Without `since` a read never answers "not modified".
    if (result.notModified) throw new TaskNotFoundError(`no such task: ${id}`);
    return result.body;
  } catch (err) {
    if (isHubError(err) && (err.code === "not_found" || err.code === "gone"))
      throw new TaskNotFoundError(`no such task: ${id}`);
    throw err;
  }
}

export async function readTask(principal: AgentPrincipal, id: string, options: ReadOptions = {}): Promise<Task> {
  const body = await readTaskBody(principal, id, options);
  return taskOf(body, await responseSigner(principal.accountId));
}

/**
 * The SDK's `TaskStore` over the messages table. Tasks are written only by the MA2H verbs (submit,
 * resolve, cancel, expiry), never saved from outside; listing is not offered (docs/a2a.md).
 */
export class MessageTaskStore implements TaskStore {
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    try {
      return await readTask(principalOf(context), taskId, { signal: signalOf(context) });
    } catch (err) {
      if (err instanceof TaskNotFoundError) return undefined;
      throw err;
    }
  }

  async save(_task: Task, _context: ServerCallContext): Promise<void> {
    throw new UnsupportedOperationError("a task changes only through its MA2H message (submit, resolve, cancel)");
  }

  async list(_params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError("ListTasks is not offered: keep the task ids SendMessage returned");
  }
}
