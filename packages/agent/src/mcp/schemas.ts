/**
 * `ma2h mcp`'s waits. The tools themselves (names, descriptions, schemas) are defined once in
 * @ma2h/protocol/mcp-tools, shared with the Hub's `/mcp`.
 */

/** The ask's wait is bounded so a tool call never hangs a session (default 120 s, at most 600 s). */
export const DEFAULT_WAIT_SECONDS = 120;
export const MAX_WAIT_SECONDS = 600;

/**
 * The server's default wait: `MA2H_MCP_WAIT_SECONDS` when set (for MCP clients that cut tool calls
 * short, e.g. at the 60 s request timeout of many clients), else 120 s; clamped to 0…600.
 */
export function defaultWaitSeconds(env: Record<string, string | undefined> = process.env): number {
  const raw = env.MA2H_MCP_WAIT_SECONDS;
  const n = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isInteger(n)) return DEFAULT_WAIT_SECONDS;
  return Math.min(Math.max(n, 0), MAX_WAIT_SECONDS);
}
