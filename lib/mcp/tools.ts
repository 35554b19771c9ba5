/**
 * The Hub's side of the MCP tools (docs/mcp.md "Remote"): the same five tools as `ma2h mcp`, defined
 * once in @ma2h/protocol/mcp-tools, here run in-process on the agent's behalf through the domain
 * services the `/v1` routes call — submit (§8.1, with the submit budget and standing rules), read
 * and long-poll (§8.2, with the parked-request caps and `max_wait_seconds`), cancel (§8.4), and the
 * directive mailbox (§8.7, §13.4). Results read exactly as `ma2h mcp`'s (@ma2h/protocol/mcp-outcome).
 * Nothing is kept in this process between calls: every id is a message or directive id in the
 * database, so any web process answers any call.
 */
import { randomUUID } from "node:crypto";
import { checkDirectiveDelivery } from "@ma2h/protocol/inbound-verify";
import type { Directive } from "@ma2h/protocol/directive";
import { isHubError, type HubError } from "@ma2h/protocol/errors";
import type { AskRequest } from "@ma2h/protocol/message";
import { directivesResult, pendingResult, responseResult, result, toolErrorResult } from "@ma2h/protocol/mcp-outcome";
import { type AskHumanInput, fieldsAnswerSchema, type McpToolResult } from "@ma2h/protocol/mcp-tools";
import { askShape } from "@ma2h/protocol/off-menu";
import { type HubResponse, responseSchema } from "@ma2h/protocol/response";
import { HUB_VERSION } from "@ma2h/protocol/versions";
import { clock } from "../clock";
import { activeSigningKey } from "../keys/signing-keys";
import { ackMailbox } from "../mailbox/ack";
import { drainMailbox } from "../mailbox/drain";
import { cancelMessage } from "../messages/cancel";
import { readMessage } from "../messages/read";
import { acceptSubmit } from "../intake/submit";
import type { AgentPrincipal } from "../principals/types";

/** The call's principal and the HTTP request's signal (the client hanging up ends a hold). */
export interface ToolContext {
  principal: AgentPrincipal;
  signal: AbortSignal;
}

/** A HubError (or anything else) → the tool error every MCP tool of ours returns. */
export function hubToolError(err: unknown): McpToolResult {
  if (isHubError(err)) return toolErrorResult(err.code, `HTTP ${err.status}`, err.message);
  return toolErrorResult("internal_error", "at the Hub", "internal error");
}

export async function guarded(run: () => Promise<McpToolResult>): Promise<McpToolResult> {
  try {
    return await run();
  } catch (err) {
    return hubToolError(err);
  }
}

function envelope(
  principal: AgentPrincipal,
  type: "ask" | "notify",
  a: { title: string; body?: string; priority?: string; tags?: string[] },
): Record<string, unknown> {
  const e: Record<string, unknown> = {
    ma2h_version: HUB_VERSION,
    type,
    created_at: clock.now().toISOString(),
    // §4.1: the run is this tool call; the Hub serves it, so the runtime is no local one of the enum.
    agent: { id: principal.agentId, run_id: `mcp_${randomUUID()}`, runtime: "other" },
    title: a.title,
    idempotency_key: `idem_${randomUUID()}`,
  };
  if (a.body !== undefined) e.body = a.body;
  if (a.priority !== undefined) e.priority = a.priority;
  if (a.tags !== undefined) e.tags = a.tags;
  return e;
}

/** The §5.2 ask envelope of ask_human's arguments (the Hub's submit checks the rest). */
function askEnvelope(principal: AgentPrincipal, a: AskHumanInput): Record<string, unknown> {
  const request: Record<string, unknown> = { mode: a.mode };
  if (a.mode === "select")
    request.options = (a.options ?? []).map((o) => ({
      value: o.value,
      label: o.label ?? o.value,
      ...(o.description !== undefined ? { description: o.description } : {}),
    }));
  if (a.mode === "input") request.schema = a.schema ?? fieldsAnswerSchema(a.fields ?? []);
  if (a.default_on_expire !== undefined) request.default_on_expire = a.default_on_expire;
  if (a.allow_edit === true) request.permissions = { allow_edit: true };
  const e: Record<string, unknown> = { ...envelope(principal, "ask", a), request };
  if (a.expires_in_seconds !== undefined)
    e.expires_at = new Date(clock.now().getTime() + a.expires_in_seconds * 1000).toISOString();
  return e;
}

/** §8.1 as `POST /v1/messages` does it: the submit budget, the submit, a standing rule's answer. */
async function submit(
  principal: AgentPrincipal,
  payload: Record<string, unknown>,
): Promise<{ id: string; status: string }> {
  const { ack } = await acceptSubmit(principal, payload);
  return { id: ack.id, status: ack.status };
}

/** Submits ask_human's question; its message id is the task id. */
export async function submitAsk(ctx: ToolContext, a: AskHumanInput): Promise<string> {
  return (await submit(ctx.principal, askEnvelope(ctx.principal, a))).id;
}

/** The outcome of a message as the model reads it: its Response, or "not answered yet". */
function outcomeOf(body: Record<string, unknown>, waited: number): McpToolResult {
  const parsed = responseSchema.safeParse(body.response);
  const shape = askShape((body as { request?: AskRequest }).request);
  if (!parsed.success) return pendingResult(String(body.id), String(body.status), waited);
  return responseResult(parsed.data as HubResponse, shape);
}

/**
 * Reads the message, holding up to `seconds` (clamped to `max_wait_seconds`, a slot of the agent's
 * parked-request cap while parked) for its terminal Response — the §8.2 long-poll.
 */
export async function readOutcome(ctx: ToolContext, id: string, seconds: number): Promise<McpToolResult> {
  const read = await readMessage(ctx.principal, id, { waitSeconds: seconds, signal: ctx.signal });
  if (read.notModified) throw new Error("unexpected not-modified read without `since`");
  return outcomeOf(read.body, seconds);
}

/** The refusals of a hold: the agent's (or its account's) parked cap, or a full process. */
function holdRefused(err: unknown): err is HubError {
  return isHubError(err) && (err.code === "rate_limited" || err.code === "unavailable");
}

/**
 * ask_human without a task: submit, then wait up to `seconds` (at most `max_wait_seconds`) — the id
 * with answered:false when the person has not answered by then. When the Hub holds no more waiting
 * calls for this agent (the parked cap), the question is still asked: the id comes back at once,
 * saying so.
 */
export async function askAndWait(ctx: ToolContext, a: AskHumanInput, seconds: number): Promise<McpToolResult> {
  const id = await submitAsk(ctx, a);
  try {
    return await readOutcome(ctx, id, seconds);
  } catch (err) {
    if (!holdRefused(err)) throw err;
    const pending = pendingResult(id, "open", 0);
    const [first] = pending.content;
    if (first)
      first.text = `${first.text}\nThe question was asked, but the Hub did not wait for the answer: ${err.message} (${err.code}).`;
    return pending;
  }
}

export function checkAnswer(ctx: ToolContext, a: { id: string; wait_seconds?: number }): Promise<McpToolResult> {
  return readOutcome(ctx, a.id, a.wait_seconds ?? 0);
}

export async function cancelAsk(ctx: ToolContext, a: { id: string }): Promise<McpToolResult> {
  const r = await cancelMessage(ctx.principal, a.id);
  return result(`Cancelled: message ${r.id} is now ${r.status}. The person will no longer be asked.`, {
    id: r.id,
    status: r.status,
  });
}

export async function notifyHuman(
  ctx: ToolContext,
  a: { title: string; body?: string; priority?: string; tags?: string[] },
): Promise<McpToolResult> {
  const { id, status } = await submit(ctx.principal, envelope(ctx.principal, "notify", a));
  return result(`Sent to the person (message ${id}, status ${status}). No answer is expected.`, { id, status });
}

const DEFAULT_MAX_DIRECTIVES = 10;
const ACK_NOTE = "Handed to the agent's model (the Hub's MCP endpoint).";

/**
 * read_directives in one step (§13.4): drain the agent's mailbox (§8.7; a wait parks as a drain
 * does, under the parked cap), verify each directive's §9.7 signature, window and addressee against
 * the Hub's published key, ack the verified ones (§14.3) and hand them over labelled as a person's
 * untrusted text. One that fails verification is neither shown nor acked. Entries of other kinds
 * (messages from agents, responses, receipts) are left un-acked for a `/v1` drain to take.
 */
export async function readDirectives(
  ctx: ToolContext,
  a: { max?: number; wait_seconds?: number },
): Promise<McpToolResult> {
  const { messages } = await drainMailbox(ctx.principal, {
    max: a.max ?? DEFAULT_MAX_DIRECTIVES,
    waitSeconds: a.wait_seconds ?? 0,
    signal: ctx.signal,
  });
  const key = await activeSigningKey();
  const keys = [{ alg: "ed25519" as const, publicKey: key.publicKey, kid: key.kid }];
  const verified: Directive[] = [];
  let rejected = 0;
  for (const entry of messages) {
    if (!("directive" in entry)) continue;
    const check = checkDirectiveDelivery({
      directive: entry.directive,
      signature: entry.signature,
      self: `agent:${ctx.principal.agentId}`,
      keys,
      now: clock.now(),
    });
    if (check.ok) verified.push(entry.directive as Directive);
    else rejected += 1;
  }
  if (verified.length > 0) await ackMailbox(ctx.principal, { ids: verified.map((d) => d.id), note: ACK_NOTE });
  return directivesResult(verified, rejected);
}
