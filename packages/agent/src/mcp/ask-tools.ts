/**
 * ask_human, check_answer, cancel_ask, notify_human: the §8.1–§8.4 client calls behind the tools.
 * A wait is bounded (the model's turn must end), reported as "not answered yet" with the id when it
 * runs out — a normal outcome, not an error.
 */
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { GetMessage } from "@ma2h/protocol/get-message";
import type { AskRequest } from "@ma2h/protocol/message";
import { type HubResponse, responseSchema } from "@ma2h/protocol/response";
import type { Ma2hClient, MessageHandle } from "../client";
import { localError, WaitTimeoutError } from "../errors";
import { type AskShape, askShape } from "../off-menu";
import { pendingResult, responseResult, result } from "@ma2h/protocol/mcp-outcome";
import { type AskHumanInput, fieldsAnswerSchema } from "@ma2h/protocol/mcp-tools";

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How often a long wait tells a client that asked for progress that we are still waiting. */
const PROGRESS_EVERY_MS = 15_000;

async function submitAsk(client: Ma2hClient, a: AskHumanInput): Promise<{ handle: MessageHandle; shape: AskShape }> {
  const common = {
    title: a.title,
    body: a.body,
    priority: a.priority,
    tags: a.tags,
    // Stamped after the capability round trip (envelopes.ts), not before it.
    expiresInMs: a.expires_in_seconds === undefined ? undefined : a.expires_in_seconds * 1000,
  };
  if (a.mode === "confirm") {
    const dflt = a.default_on_expire;
    if (dflt !== undefined && dflt !== "approve" && dflt !== "deny") {
      throw localError("invalid_field", "default_on_expire for confirm must be 'approve' or 'deny'");
    }
    const handle = await client.messages.ask.confirm({ ...common, allowEdit: a.allow_edit, defaultOnExpire: dflt });
    return { handle, shape: { mode: "confirm" } }; // the synthesized options (outcome.ts)
  }
  if (a.mode === "select") {
    const options = a.options ?? [];
    if (a.default_on_expire !== undefined && typeof a.default_on_expire !== "string") {
      throw localError("invalid_field", "default_on_expire for select must be one of the option values");
    }
    const handle = await client.messages.ask.select({
      ...common,
      options,
      allowEdit: a.allow_edit,
      defaultOnExpire: a.default_on_expire,
    });
    return { handle, shape: { mode: "select", optionValues: options.map((o) => o.value) } };
  }
  if (typeof a.default_on_expire === "string")
    throw localError("invalid_field", "default_on_expire for input must be an object");
  const schema = a.schema ?? fieldsAnswerSchema(a.fields ?? []);
  const handle = await client.messages.ask.input({ ...common, schema, defaultOnExpire: a.default_on_expire });
  return { handle, shape: { mode: "input" } };
}

/**
 * Waits up to `seconds` for the terminal Response; null when it is still open. Sends a progress
 * notification now and then when the client asked for progress (so a client that resets its
 * request timeout on progress does not give up on a long wait).
 */
async function waitBounded(client: Ma2hClient, id: string, seconds: number, extra: Extra): Promise<HubResponse | null> {
  if (seconds <= 0) return null;
  const token = extra._meta?.progressToken;
  const started = Date.now();
  const timer =
    token === undefined
      ? null
      : setInterval(() => {
          const waited = Math.round((Date.now() - started) / 1000);
          void extra
            .sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: waited, total: seconds, message: "waiting for the person" },
            })
            .catch(() => {});
        }, PROGRESS_EVERY_MS);
  try {
    return await client.messages.wait(id, { timeoutMs: seconds * 1000, signal: extra.signal });
  } catch (err) {
    if (err instanceof WaitTimeoutError) return null;
    throw err;
  } finally {
    if (timer) clearInterval(timer);
  }
}

export async function askHuman(
  client: Ma2hClient,
  a: AskHumanInput,
  extra: Extra,
  defaultWait: number,
): Promise<CallToolResult> {
  const { handle, shape } = await submitAsk(client, a);
  const seconds = a.wait_seconds ?? defaultWait;
  const response = await waitBounded(client, handle.id, seconds, extra);
  return response === null ? pendingResult(handle.id, "open", seconds) : responseResult(response, shape);
}

/** The asker's view of its own question, from the §8.2 GET body (which carries the envelope). */
function shapeOf(body: GetMessage): AskShape {
  return askShape((body as { request?: AskRequest }).request);
}

export async function checkAnswer(
  client: Ma2hClient,
  a: { id: string; wait_seconds?: number },
  extra: Extra,
): Promise<CallToolResult> {
  const seconds = a.wait_seconds ?? 0;
  const waited = await waitBounded(client, a.id, seconds, extra);
  // One GET either way: it tells an unknown id (not_found) and carries the options we offered.
  const body = await client.messages.get(a.id, { signal: extra.signal });
  if (body === null) throw new Error("unexpected 304 without `since`");
  const parsed = responseSchema.safeParse((body as { response?: unknown }).response);
  if (!parsed.success) {
    return waited === null ? pendingResult(body.id, body.status, seconds) : responseResult(waited, shapeOf(body));
  }
  return responseResult(parsed.data, shapeOf(body));
}

export async function cancelAsk(client: Ma2hClient, a: { id: string }, extra: Extra): Promise<CallToolResult> {
  const r = await client.messages.cancel(a.id, { signal: extra.signal });
  return result(`Cancelled: message ${r.id} is now ${r.status}. The person will no longer be asked.`, {
    id: r.id,
    status: r.status,
  });
}

export async function notifyHuman(
  client: Ma2hClient,
  a: { title: string; body?: string; priority?: "low" | "normal" | "high" | "urgent"; tags?: string[] },
): Promise<CallToolResult> {
  const { ack } = await client.messages.notify({ title: a.title, body: a.body, priority: a.priority, tags: a.tags });
  return result(`Sent to the person (message ${ack.id}, status ${ack.status}). No answer is expected.`, {
    id: ack.id,
    status: ack.status,
  });
}
