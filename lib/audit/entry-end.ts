/**
 * The audit row of a command entry's undeliverable end (§14.2): a directive's `directive.<end>`,
 * an addressed message's `message.mailbox_<end>` on the message itself. One builder for the two
 * places entries end — a session's end (lib/sessions/end.ts) and the drop sweep (lib/mailbox/expiry.ts).
 */
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { AUDIT_EVENT, directiveEnded, type DirectiveEnd } from "./events";
import type { AuditRow } from "./write";

export interface EndedEntry {
  id: string;
  account_id: string;
  kind: string;
}

export function entryEndAudit(
  entry: EndedEntry,
  end: DirectiveEnd,
  actor: string,
  at: Date,
  detail: Record<string, string> = {},
): AuditRow {
  if (entry.kind === ENTRY_KIND.message) {
    const event = end === "expired" ? AUDIT_EVENT.mailboxExpired : AUDIT_EVENT.mailboxBounced;
    return { accountId: entry.account_id, messageId: entry.id, actor, event, detail, at };
  }
  return {
    accountId: entry.account_id,
    actor,
    event: directiveEnded(end),
    detail: { directive_id: entry.id, ...detail },
    at,
  };
}
