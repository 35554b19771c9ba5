/**
 * Every audit event kind the Hub writes, one table. The audit trail is append-only and read back by
 * kind (the admin page's facet, the JSON Lines export), so a kind is named once here and every
 * writer — the Prisma writer (write.ts) and the single-statement SQL paths — takes it from here.
 */
import type { Resolution } from "@ma2h/protocol/lifecycle";

export const AUDIT_EVENT = {
  // Administration (CLI and web admin).
  accountCreated: "account.created",
  memberAdded: "member.added",
  memberRoleChanged: "member.role_changed",
  memberRemoved: "member.removed",
  // A person's own PATs: written to the person's stream, never an account's.
  tokenCreated: "token.created",
  tokenRevoked: "token.revoked",
  agentCreated: "agent.created",
  // Who is accountable for an agent (lib/principals/sponsors.ts).
  agentSponsorsChanged: "agent.sponsors_changed",
  // Account groups (lib/groups/): kept by owners and the operator, and from the identity provider's
  // groups claim at sign-in (`group.member_*` with `source: "idp"`).
  groupCreated: "group.created",
  groupDeleted: "group.deleted",
  groupMemberAdded: "group.member_added",
  groupMemberRemoved: "group.member_removed",
  groupMappingAdded: "group.mapping_added",
  groupMappingRemoved: "group.mapping_removed",
  // The account's approval policy (lib/policies/store.ts): each apply, with its diff.
  policyApplied: "policy.applied",
  // A person's vote on an ask a quorum rule routed (lib/messages/approvals.ts): cast, changed, withdrawn.
  approvalRecorded: "approval.recorded",
  approvalReplaced: "approval.replaced",
  approvalWithdrawn: "approval.withdrawn",
  // Out-of-office delegation (lib/delegation/): set or cleared by the person or the operator.
  delegationSet: "delegation.set",
  delegationCleared: "delegation.cleared",
  // An open ask or task handed to more people (lib/assignment/reassign.ts), or escalated by the
  // approval policy's `escalate_after` (lib/assignment/escalate.ts).
  messageReassigned: "message.reassigned",
  messageEscalated: "message.escalated",
  // Standing rules (lib/standing-rules/): made with a person's answer, answering (or in shadow mode
  // counting) later asks as `system:rule/<id>`, stopped at the hourly cap, revoked.
  standingRuleCreated: "rule.created",
  standingRuleAnswered: "rule.answered",
  standingRuleShadowHit: "rule.shadow_hit",
  standingRuleStopped: "rule.stopped",
  standingRuleRevoked: "rule.revoked",
  keyRotated: "key.rotated",
  keyRevoked: "key.revoked",
  bindingAdded: "binding.added",
  bindingSecretAdded: "binding.secret_added",
  bindingSecretRemoved: "binding.secret_removed",
  bindingRevoked: "binding.revoked",
  // Standard Webhooks headers on a binding's pushes (lib/delivery/binding-webhooks.ts).
  bindingWebhooksOn: "binding.standard_webhooks_on",
  bindingWebhooksRotated: "binding.standard_webhooks_rotated",
  bindingWebhooksOff: "binding.standard_webhooks_off",
  deliveryRedriven: "delivery.redriven",
  // The agent→human leg (§7, §8.1, §8.9).
  messageSubmitted: "message.submitted",
  messagePurged: "message.purged",
  // The response track (§14).
  responseDeliveredToAgent: "response.delivered_to_agent",
  responseAcknowledged: "response.acknowledged",
  responseDeliveryExpired: "response.delivery_expired",
  // The human→agent leg (§13, §8.7).
  directiveCreated: "directive.created",
  directiveAcknowledged: "directive.acknowledged",
  directiveExpired: "directive.expired",
  directiveBounced: "directive.bounced",
  // An addressed message's mailbox track (§14.2): consumed by the addressee, or undeliverable.
  mailboxAcknowledged: "message.mailbox_acknowledged",
  mailboxBounced: "message.mailbox_bounced",
  mailboxExpired: "message.mailbox_expired",
  // Notification preferences (the person's stream) and account settings (docs/notifications.md).
  notificationPreferencesChanged: "notification.preferences_changed",
  notificationPreferencesReset: "notification.preferences_reset",
  notificationDefaultsChanged: "notification.defaults_changed",
  notificationEmailAnswerChanged: "notification.email_answer_changed",
  // A person's own sign-in identities (the person's stream, lib/principals/identities.ts).
  identityLinked: "identity.linked",
  identityUnlinked: "identity.unlinked",
  identitySignedIn: "identity.signed_in",
  // Notifications: an account's reminder and escalation delays.
  notificationRemindersChanged: "notifications.reminders_changed",
  // Invitations: a seat offered to a person who already sits elsewhere, and its end.
  invitationCreated: "invitation.created",
  invitationAccepted: "invitation.accepted",
  invitationDeclined: "invitation.declined",
  invitationRevoked: "invitation.revoked",
  // Slack "who clicked" (lib/notifications/slack/bindings.ts): a Slack user bound to a person, and removed —
  // written to both the account's trail and the person's own stream.
  slackUserBound: "slack.user_bound",
  slackUserUnbound: "slack.user_unbound",
  // Slack: an account's Slack app connected, its destinations changed, disconnected.
  slackConnected: "slack.connected",
  slackSettingsChanged: "slack.settings_changed",
  slackDisconnected: "slack.disconnected",
  // Microsoft Teams (lib/notifications/teams/): a bot connected or disconnected, a Teams user bound
  // to a person and removed (the binding rows written to both trails, as for Slack).
  teamsConnected: "teams.connected",
  teamsDisconnected: "teams.disconnected",
  teamsUserBound: "teams.user_bound",
  teamsUserUnbound: "teams.user_unbound",
  // Sessions (§16) and the operator's hard stop (§16.4.1).
  sessionRegistered: "session.registered",
  sessionClosed: "session.closed",
  sessionExpired: "session.expired",
  agentStopped: "agent.stopped",
  agentResumed: "agent.resumed",
  // §16.4: an owner lets the account's agents list each other's sessions, or stops letting them.
  accountSessionVisibilityChanged: "account.session_visibility_changed",
  // §8.0: an owner opts the account into the inter-agent leg, or out; §13.5: who may address an agent.
  accountInterAgentChanged: "account.inter_agent_changed",
  agentSendersChanged: "agent.senders_changed",
  // A person's own browser push devices (the person's stream, lib/notifications/web-push/subscriptions.ts).
  pushDeviceAdded: "push.device_added",
  pushDeviceRemoved: "push.device_removed",
} as const;

/** A message's terminal transition is recorded as `message.<resolution>` (§7). */
export type MessageResolvedEvent = `message.${Resolution}`;

export function messageResolved(resolution: Resolution): MessageResolvedEvent {
  return `message.${resolution}`;
}

/** An un-acked directive's end (§13): `expired` while still queued, `bounced` once delivered. */
export type DirectiveEnd = "expired" | "bounced";

export function directiveEnded(end: DirectiveEnd): AuditEventKind {
  return end === "expired" ? AUDIT_EVENT.directiveExpired : AUDIT_EVENT.directiveBounced;
}

export type AuditEventKind = (typeof AUDIT_EVENT)[keyof typeof AUDIT_EVENT] | MessageResolvedEvent;
