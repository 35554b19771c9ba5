/** §8.6 size and depth limits that depend on the parsed envelope. Over a size limit is 422. */
import type { Tx } from "../db";
import { HubError } from "../protocol/errors";
import type { Message } from "../protocol/message";

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

/**
 * §8.6 inbox depth: at most `inbox_depth` open asks/tasks per agent. The advisory lock serialises
 * concurrent submits of one agent so the count cannot be overshot.
 */
export async function assertOpenCapacity(tx: Tx, agentRowId: string, depth: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${agentRowId}))`;
  const open = await tx.message.count({ where: { agentRowId, status: "open" } });
  if (open >= depth) {
    throw new HubError("rate_limited", `this agent already has ${open} open asks/tasks (inbox_depth ${depth})`, {
      retryAfterSeconds: 60,
    });
  }
}
