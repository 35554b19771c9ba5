/**
 * Answering from the notification (docs/notifications.md "Answering from the notification"): the
 * service worker posts the token of the action button the person chose, and the answer goes through
 * `answerByLink` — every rule of the mail's one-click links (single use, bound to the person, the item
 * and the value, the approval policy, `email_answers: false`), audited as `channel: "push"`. What
 * comes back is the state and, when the answer was recorded, the text of the confirming notification
 * ("Approved — deploy #142"); on anything else the worker opens the item instead.
 */
import { answerByLink, type LinkState } from "../email-answer";

export interface PushAnswer {
  state: LinkState["kind"];
  /** The confirming notification's title, when the answer (or a quorum's approval) was recorded. */
  notice?: string;
  /** A refusal's reason, when the item's rules say why. */
  reason?: string;
}

/** The HTTP status of each state: the same as the mail's answer page (app/e/[token]/view.ts). */
export const PUSH_ANSWER_STATUS: Record<LinkState["kind"], number> = {
  ready: 200,
  answered: 200,
  recorded: 200,
  voted: 409,
  sign_in: 403,
  invalid: 404,
  used: 410,
  expired: 410,
  closed: 409,
  refused: 403,
  other_person: 403,
};

const PAST = new Map([
  ["Approve", "Approved"],
  ["Deny", "Denied"],
]);

/** "Approved — deploy #142", "Denied — …", or the chosen option's label for any other. */
export function noticeFor(optionLabel: string, title: string): string {
  return `${PAST.get(optionLabel) ?? optionLabel} — ${title}`;
}

export async function answerByPushAction(token: string, sessionUserId: string | null): Promise<PushAnswer> {
  const state = await answerByLink(token, sessionUserId);
  if (state.kind === "answered")
    return { state: state.kind, notice: noticeFor(state.item.optionLabel, state.item.title) };
  if (state.kind === "recorded")
    return {
      state: state.kind,
      notice: `Approval recorded (${state.approvals.have} of ${state.approvals.need}) — ${state.item.title}`,
    };
  if (state.kind === "refused" && state.reason) return { state: state.kind, reason: state.reason };
  return { state: state.kind };
}
