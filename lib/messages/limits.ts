/** §8.6 size and depth limits that depend on the parsed envelope. Over a size limit is 422. */
import type { Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import type { Message } from "@ma2h/protocol/message";
import { lockedOpenCount } from "./limits.sql";

export function assertContextLimits(
  message: Pick<Message, "context">,
  l: { maxContextParts: number; maxPartBytes: number },
): void {
  const parts = message.context ?? [];
  if (parts.length > l.maxContextParts) {
    throw new HubError("invalid_field", `context has ${parts.length} parts; max_context_parts is ${l.maxContextParts}`);
  }
  parts.forEach((part, i) => {
    const size = Buffer.byteLength(JSON.stringify(part), "utf8");
    if (size > l.maxPartBytes) {
      throw new HubError("invalid_field", `context[${i}] is ${size} bytes; max_part_bytes is ${l.maxPartBytes}`);
    }
  });
}

/** The §8.6 refusal of an ask/task over the agent's inbox depth. */
export function inboxFull(open: number, depth: number): HubError {
  return new HubError("rate_limited", `this agent already has ${open} open asks/tasks (inbox_depth ${depth})`, {
    retryAfterSeconds: 60,
  });
}

/**
 * §8.6 inbox depth: at most `inbox_depth` open asks/tasks per agent. Locks the agent's row of
 * agent_open_counts (kept by triggers on `messages`) until `tx` ends — the same lock the one-statement
 * submit takes (submit.sql.ts) — so concurrent submits of one agent cannot overshoot the count.
 */
export async function assertOpenCapacity(tx: Tx, agentRowId: string, depth: number): Promise<void> {
  const open = await lockedOpenCount(tx, agentRowId);
  if (open >= depth) throw inboxFull(open, depth);
}
