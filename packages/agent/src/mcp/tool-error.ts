/**
 * Any failure inside a tool → an MCP tool error (`isError: true`), never a crash of the server and
 * never a protocol error. Every text starts `MA2H error <code>`: the §8.5 code of a Hub answer, or
 * one of the `ma2h` command's own codes for a local failure (`keys_unavailable`,
 * `verification_failed`, `internal`), so the model reads one code and can decide what to do (fix
 * its input on `validation_error`, stop on `session_closed_by_operator`, retry later on
 * `rate_limited`…).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toolErrorResult } from "@ma2h/protocol/mcp-outcome";
import { Ma2hError } from "../errors";
import { HubKeysError } from "../keys";
import { VerificationError } from "../verification";

const text = toolErrorResult;

/** The SDK's messages start with their code; the text carries it once. */
function strip(code: string, message: string): string {
  return message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message;
}

export function toolError(err: unknown): CallToolResult {
  // The two that are not about a request come first: every SDK error extends Ma2hError.
  if (err instanceof HubKeysError) return text("keys_unavailable", "fetching the Hub's keys", err.message);
  if (err instanceof VerificationError) {
    const why = err.message.includes(err.reason) ? err.message : `${err.reason}: ${err.message}`;
    return text("verification_failed", "refused by this server", why);
  }
  if (err instanceof Ma2hError) {
    const where = err.local ? "refused before sending" : err.status > 0 ? `HTTP ${err.status}` : "no HTTP answer";
    return text(err.code, where, strip(err.code, err.message));
  }
  return text("internal", "in this server", err instanceof Error ? err.message : String(err));
}

/**
 * The MCP SDK's own refusals of a call (an argument its strict input schema refuses, an unknown
 * tool) reach the model as a bare message; they are refused before anything is sent, as
 * `validation_error`. Our tool handlers never throw (every one is wrapped in toolError), so nothing
 * else takes this path but the SDK's check of our own output, which is ours to fix (`internal`).
 */
export function sdkToolError(message: string): CallToolResult {
  if (message.startsWith("MA2H error ")) return { isError: true, content: [{ type: "text", text: message }] };
  if (message.startsWith("Output validation error")) return text("internal", "in this server", message);
  return text("validation_error", "refused before sending", message);
}
