/**
 * The answer to a vote that does not complete its ask's quorum (docs/policies.md "Quorum"): `202`
 * over `/v1`, and what the inbox, mail, Slack and push channels read to say "1 of 2 — your approval
 * is recorded". The ask stays `open` for its agent until the Response (§7).
 */
import { z } from "zod";

export const pendingApprovalSchema = z.object({
  id: z.string().min(1),
  status: z.literal("open"),
  approvals: z.object({
    /** The eligible approvals the caller's answer has now (theirs included). */
    have: z.number().int().min(0),
    /** How many it needs (the quorum's M). */
    need: z.number().int().min(1),
  }),
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

/** Whether a resolve's result is a recorded vote (202) rather than a terminal (200). */
export function isPendingApproval(result: { status: string }): result is PendingApproval {
  return result.status === "open";
}

/**
 * What the person whose vote was recorded is told, in every channel that answers them in words
 * (the inbox's row action and item page; docs/policies.md "Quorum"): "1 of 2 — your approval is
 * recorded".
 */
export function approvalRecordedText(approvals: PendingApproval["approvals"]): string {
  return `${approvals.have} of ${approvals.need} — your approval is recorded`;
}
