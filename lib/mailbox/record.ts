/**
 * One mailbox row, as the agent receives it (§13.1) and as its author's account reads it (the
 * directive track, §14.2). The states and which of them are live come from here only.
 */
import type { MailboxEntry } from "../generated/prisma/client";
import type { Directive, DirectiveContent } from "@ma2h/protocol/directive";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { type MailboxTrack, mailboxTrack } from "../messages/mailbox-track";

/** §14.2 mailbox track. `queued`/`delivered` are live (deliverable); the rest are terminal. */
export const MAILBOX_STATES = ["queued", "delivered", "acknowledged", "expired", "bounced"] as const;
export type MailboxState = (typeof MAILBOX_STATES)[number];
export const LIVE_STATES: readonly MailboxState[] = ["queued", "delivered"];

export const DIRECTIVE_KIND = ENTRY_KIND.directive;

export type MailboxRow = MailboxEntry & { agent: { agentId: string } };

export function contentOf(row: MailboxEntry): DirectiveContent {
  return JSON.parse(row.content) as DirectiveContent;
}

/** The delivered directive: stored content plus the Hub-assigned and advisory fields. */
export function deliveredDirective(row: MailboxRow): Directive {
  const d: Directive = {
    ma2h_version: row.ma2hVersion,
    type: "directive",
    id: row.id,
    from: row.fromActor,
    // §13.2: a session-addressed directive names its session in `to` (signed with it, §9.7).
    to: row.toSession ? `agent:${row.agent.agentId}#${row.toSession}` : `agent:${row.agent.agentId}`,
    created_at: row.createdAt.toISOString(),
    ...contentOf(row),
  };
  if (row.expiresAt) d.expires_at = row.expiresAt.toISOString();
  if (row.sensitive) d.sensitive = true;
  return d;
}

export type DirectiveDelivery = MailboxTrack & { note?: string };

/** `GET /v1/directives/{id}`: the directive with `status` and its delivery track. */
export function directiveBody(row: MailboxRow): Directive & { status: MailboxState; delivery: DirectiveDelivery } {
  const delivery: DirectiveDelivery = mailboxTrack(row);
  if (row.ackNote !== null) delivery.note = row.ackNote;
  return { ...deliveredDirective(row), status: row.state as MailboxState, delivery };
}
