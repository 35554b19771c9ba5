/** §8.4 cancel: submitter-bound, ask-only, idempotent; loses to a terminal or to an overdue expiry. */
import { clock } from "../clock";
import { db } from "../db";
import type { CancelResult } from "@ma2h/protocol/api-bodies";
import { HubError } from "@ma2h/protocol/errors";
import type { AgentPrincipal } from "../principals/types";
import { loadForSubmitter } from "./access";
import { afterTerminal } from "./after-terminal";
import { applyOwedTerminalInTx } from "./undeliverable";
import { commitTerminal } from "./lifecycle";
import { cancelledOutcome } from "./outcomes";
import { envelopeOf } from "./record";
import { terminalConflict } from "./conflict";

export async function cancelMessage(principal: AgentPrincipal, id: string): Promise<CancelResult> {
  const row = await loadForSubmitter(principal, id);
  if (row.type !== "ask") {
    throw new HubError("invalid_field", `a ${row.type} cannot be cancelled; only an open ask can (§8.4)`);
  }
  const envelope = envelopeOf(row);
  const result = await db().$transaction(async (tx) => {
    const now = clock.now();
    const cancelled = await commitTerminal(tx, row, envelope, "cancel", cancelledOutcome(principal.agentId, now), now);
    // §7: strictly after expires_at expiry wins; after an undeliverable end, the auto-resolution.
    return cancelled.won ? cancelled : applyOwedTerminalInTx(tx, id, now);
  });
  await afterTerminal(result);
  const after = await db().message.findUniqueOrThrow({ where: { id }, select: { id: true, status: true } });
  if (after.status === "cancelled") return { id, status: "cancelled" }; // also a repeat cancel (§8.4)
  throw terminalConflict(after);
}
