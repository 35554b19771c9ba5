/**
 * Any failure inside a tool → an MCP tool error (`isError: true`), never a crash of the server and
 * never a protocol error. Every text starts `MA2H error <code>`: the §8.5 code of a Hub answer, or
 * one of the `ma2h` command's own codes for a local failure (`keys_unavailable`,
 * `verification_failed`, `internal`), so the model reads one code and can decide what to do (fix
 * its input on `validation_error`, stop on `session_closed_by_operator`, retry later on
 * `rate_limited`…).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Ma2hError } from "../errors";
import { HubKeysError } from "../keys";
import { VerificationError } from "../verification";

const HINTS: Record<string, string> = {
  unauthenticated: "The MA2H API key (MA2H_API_KEY) was refused; the person running this server must fix it.",
  agent_id_mismatch: "MA2H_AGENT_ID does not match the agent the API key belongs to.",
  not_found: "No such message for this agent: check the id.",
  already_terminal: "The message is already resolved; call check_answer to read the outcome.",
  session_closed_by_operator: "A person stopped this agent. Stop and do not retry; only a person can lift it.",
  rate_limited: "Too many requests; wait before trying again.",
  validation_error: "The request was refused as malformed; fix the arguments.",
  invalid_field: "A field's value was refused; fix the arguments.",
  keys_unavailable:
    "The Hub's signing keys could not be fetched, so nothing signed can be verified. The person running this server must check MA2H_URL: it must be the Hub's public URL (its MA2H_PUBLIC_URL).",
  verification_failed:
    "A signature did not verify. If every one fails, MA2H_URL is likely not the Hub's public URL (its MA2H_PUBLIC_URL).",
};

function text(code: string, where: string, message: string): CallToolResult {
  const hint = HINTS[code];
  return {
    isError: true,
    content: [{ type: "text", text: `MA2H error ${code} (${where}): ${message}${hint ? `\n${hint}` : ""}` }],
  };
}

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
