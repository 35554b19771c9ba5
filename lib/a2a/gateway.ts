/**
 * The A2A request handler of the Hub's gateway (docs/a2a.md): each A2A method as an MA2H verb of
 * the authenticated agent. SendMessage submits through the same path as `POST /v1/messages`
 * (the agent's submit budget, `submitMessage` with its approval policy, notifications and audit,
 * then the account's standing rules); GetTask is the §8.2 read; CancelTask the §8.4 cancel;
 * SubscribeToTask and SendStreamingMessage hold §8.2 long-polls, woken by the terminal NOTIFY like
 * any long-poll. Push configs: ./push.ts.
 */
import { randomUUID } from "node:crypto";
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import {
  A2AError,
  A2A_ERROR_CODE,
  ExtendedAgentCardNotConfiguredError,
  JsonRpcTransportError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { isHubError } from "@ma2h/protocol/errors";
import { clock } from "../clock";
import { limits } from "../env";
import { log } from "../log";
import { cancelMessage } from "../messages/cancel";
import { acceptSubmit } from "../intake/submit";
import type { AgentPrincipal } from "../principals/types";
import { hubAgentCard } from "./card";
import { envelopeForMessage, idempotencyKeyOf, isFinal, MappingError, stateOf, taskOf } from "./mapping";
import { checkPushConfig, deletePushConfig, getPushConfig, listPushConfigs, savePushConfig } from "./push";
import { MessageTaskStore, principalOf, priorSubmit, readTask, readTaskBody, responseSigner, signalOf } from "./tasks";

/** A Hub error as the JSON-RPC error an A2A client reads: not found is TaskNotFound, the rest keep their code. */
export function a2aErrorOf(err: unknown): unknown {
  if (err instanceof A2AError) return err;
  if (!isHubError(err)) {
    // Never the message: driver errors can quote parameters, and parameters carry content.
    log.error("a2a: unhandled error", { error_name: (err as Error)?.name ?? "unknown" });
    return new JsonRpcTransportError({
      jsonrpc: "2.0",
      id: null,
      error: { code: A2A_ERROR_CODE.INTERNAL_ERROR, message: "internal error" },
    });
  }
  if (err.code === "not_found" || err.code === "gone") return new TaskNotFoundError(err.message);
  const code = err.status >= 500 ? A2A_ERROR_CODE.INTERNAL_ERROR : A2A_ERROR_CODE.INVALID_PARAMS;
  return new JsonRpcTransportError({
    jsonrpc: "2.0",
    id: null,
    error: { code, message: `${err.code}: ${err.message}`, data: [{ "@type": "ma2h.error", ...err.toBody() }] },
  });
}

/** Runs `fn`, rethrowing a Hub error as its A2A form. */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw a2aErrorOf(err);
  }
}

export class HubRequestHandler implements A2ARequestHandler {
  readonly store = new MessageTaskStore();

  async getAgentCard(): Promise<AgentCard> {
    return hubAgentCard();
  }

  async getAuthenticatedExtendedAgentCard(_p: GetExtendedAgentCardRequest, _c: ServerCallContext): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError("the Hub publishes one card for everyone");
  }

  /** The submit; the task is returned at once, working — a person answers in their own time. */
  private async submit(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    const principal = principalOf(context);
    const message = params.message;
    if (!message?.messageId) throw new RequestMalformedError("message.messageId is required");
    if (message.taskId)
      throw new UnsupportedOperationError("a task of the Hub takes no further messages: send a new message");
    // A resend of the same message id is a §8.1 replay of the same envelope: its original
    // `created_at` (and context, when the client names none), so an identical message is the same task.
    const prior = await priorSubmit(principal, idempotencyKeyOf(message));
    const contextId = message.contextId || prior?.runId || randomUUID();
    let envelope: Record<string, unknown>;
    try {
      envelope = envelopeForMessage(principal.agentId, message, contextId, prior?.createdAt ?? clock.now());
    } catch (err) {
      if (err instanceof MappingError)
        throw new JsonRpcTransportError({
          jsonrpc: "2.0",
          id: null,
          error: { code: A2A_ERROR_CODE.INVALID_PARAMS, message: err.message },
        });
      throw err;
    }
    // A push config given with the message is checked first: a refused one submits nothing.
    const push = params.configuration?.taskPushNotificationConfig;
    if (push) await mapped(() => checkPushConfig(principal, push));
    const id = await mapped(() => submitAsV1(principal, envelope));
    if (push) await mapped(() => savePushConfig(principal, id, { ...push, taskId: id }));
    return mapped(() => readTask(principal, id, { signal: signalOf(context) }));
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return mapped(() => this.submit(params, context));
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const task = await mapped(() => this.submit(params, context));
    yield* this.follow(task, context);
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = await mapped(() => this.store.load(params.id, context));
    if (!task) throw new TaskNotFoundError(`no such task: ${params.id}`);
    return task;
  }

  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.store.list(params, context);
  }

  /** §8.4: only an open ask can be cancelled; a terminal task or a notify is not cancelable. */
  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const principal = principalOf(context);
    const before = await mapped(() => readTaskBody(principal, params.id, { signal: signalOf(context) }));
    if (isFinal(stateOf(before))) throw new TaskNotCancelableError(`task ${params.id} is already final`);
    try {
      await cancelMessage(principal, params.id);
    } catch (err) {
      if (isHubError(err) && (err.code === "already_terminal" || err.code === "invalid_field"))
        throw new TaskNotCancelableError(`task ${params.id} cannot be cancelled: ${err.message}`);
      throw a2aErrorOf(err);
    }
    return mapped(() => readTask(principal, params.id, { signal: signalOf(context) }));
  }

  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const task = await mapped(() => readTask(principalOf(context), params.id, { signal: signalOf(context) }));
    yield* this.follow(task, context);
  }

  /**
   * The task now, then — while it is working — §8.2 long-polls of at most the Hub's wait until it
   * turns terminal (woken by the terminal NOTIFY, from any process), then its artifact and final status.
   */
  private async *follow(first: Task, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    try {
      yield* this.followUnmapped(first, context);
    } catch (err) {
      throw a2aErrorOf(err);
    }
  }

  private async *followUnmapped(first: Task, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const principal = principalOf(context);
    const signal = signalOf(context);
    yield { payload: { $case: "task", value: first } };
    let state = first.status?.state;
    while (state !== undefined && !isFinal(state)) {
      if (signal?.aborted) return;
      const body = await readTaskBody(principal, first.id, { waitSeconds: limits().maxWaitSeconds, signal });
      state = stateOf(body);
      if (!isFinal(state)) continue;
      const task = taskOf(body, await responseSigner(principal.accountId));
      for (const artifact of task.artifacts)
        yield {
          payload: {
            $case: "artifactUpdate",
            value: {
              taskId: task.id,
              contextId: task.contextId,
              artifact,
              append: false,
              lastChunk: true,
              metadata: undefined,
            },
          },
        };
      yield {
        payload: {
          $case: "statusUpdate",
          value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined },
        },
      };
    }
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return mapped(() => savePushConfig(principalOf(context), params.taskId, params));
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return mapped(() => getPushConfig(principalOf(context), params.taskId, params.id));
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const configs = await mapped(() => listPushConfigs(principalOf(context), params.taskId));
    return { configs, nextPageToken: "" };
  }

  async deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    await mapped(() => deletePushConfig(principalOf(context), params.taskId, params.id));
  }
}

/**
 * What `POST /v1/messages` does with a submit (lib/http/routes/submit.ts): the agent's submit
 * budget, `submitMessage`, then a standing rule's answer for a new open ask. Returns the message id.
 */
async function submitAsV1(principal: AgentPrincipal, envelope: Record<string, unknown>): Promise<string> {
  return (await acceptSubmit(principal, envelope)).ack.id;
}
