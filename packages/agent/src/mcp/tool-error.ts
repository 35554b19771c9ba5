/**
 * Any failure inside a tool → an MCP tool error (`isError: true`), never a crash of the server and
 * never a protocol error: the model reads the §8.5 `code` and can decide what to do (fix its input
 * on `validation_error`, stop on `session_closed_by_operator`, retry later on `rate_limited`…).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Ma2hError } from "../errors";
import { VerificationError } from "../verification";

const HINTS: Record<string, string> = {
  unauthenticated: "The MA2H API key (MA2H_API_KEY) was refused; the person running this server must fix it.",
  agent_id_mismatch: "MA2H_AGENT_ID does not match the agent the API key belongs to.",
  not_found: "No such message for this agent: check the id.",
  already_terminal: "The message is already resolved; call check_answer to read the outcome.",
  session_closed_by_operator: "A person stopped this agent. Stop and do not retry; only a person can lift it.",
  rate_limited: "Too many requests; wait before trying again.",
  validation_error: "The Hub refused the request as malformed; fix the arguments.",
  invalid_field: "The Hub refused a field's value; fix the arguments.",
};

export function toolError(err: unknown): CallToolResult {
  if (err instanceof Ma2hError) {
    const where = err.local ? "refused before sending" : err.status > 0 ? `HTTP ${err.status}` : "no HTTP answer";
    const hint = HINTS[err.code];
    const text = `MA2H error ${err.code} (${where}): ${err.message}${hint ? `\n${hint}` : ""}`;
    return { isError: true, content: [{ type: "text", text }] };
  }
  if (err instanceof VerificationError) {
    return { isError: true, content: [{ type: "text", text: `MA2H verification refused (${err.reason}).` }] };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { isError: true, content: [{ type: "text", text: `MA2H MCP server error: ${message}` }] };
}
