/**
 * The answer-link page as one small static HTML document: no script, no stylesheet or image
 * from anywhere, one form that POSTs back to the same URL — it works in any browser, with or without
 * JavaScript, and outside the signed-in shells. Every state says plainly what happened; a refusal
 * shows nothing of any item.
 */
import type { LinkItem, LinkState } from "@/lib/notifications/email-answer";
import { escapeHtml } from "@/lib/notifications/text";

export type PageState = LinkState | { kind: "cross_site" };

/** HTTP status per state: 4xx for every refusal (a sign-in needed first is 403: no HTTP auth scheme to name). */
export const STATUS: Record<PageState["kind"], number> = {
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
  cross_site: 403,
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:10vh auto;padding:0 1rem;color:#1b1b1b}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{color:#555}dd{margin:0}
button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #1a5;background:#1a5;color:#fff;cursor:pointer}
.note{color:#555;font-size:.9rem}`;

function summary(item: LinkItem): string {
  return `<dl data-testid="email-answer-item">
<dt>Item</dt><dd data-testid="email-answer-title">${escapeHtml(item.title)}</dd>
<dt>From</dt><dd>${escapeHtml(item.agent)}</dd>
<dt>Priority</dt><dd>${escapeHtml(item.priority)}</dd>
<dt>Your answer</dt><dd><strong data-testid="email-answer-option">${escapeHtml(item.optionLabel)}</strong></dd>
</dl>`;
}

/** The signed-in item page, where a quorum's vote is changed or withdrawn (docs/policies.md "Quorum"). */
const itemPage = (item: LinkItem) => `/inbox/${encodeURIComponent(item.id)}`;
const changeOnPage = (item: LinkItem) =>
  `<p class="note" data-testid="email-answer-change">Changing or withdrawing your answer happens on <a href="${itemPage(item)}">the item's page in the Hub</a>, signed in.</p>`;

const itemLink = (item: LinkItem) =>
  `<p class="note"><a href="/inbox/${encodeURIComponent(item.id)}">Open the item in the Hub</a> to answer differently.</p>`;

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function content(state: PageState, token: string): { title: string; body: string } {
  const self = `/e/${encodeURIComponent(token)}`;
  switch (state.kind) {
    case "ready":
      return {
        title: "Confirm your answer",
        body: `${summary(state.item)}
<form method="post" action="${escapeHtml(self)}">
<button type="submit" data-testid="email-answer-confirm">Confirm: ${escapeHtml(state.item.optionLabel)}</button>
</form>
<p class="note">${
          state.item.approvalsNeeded
            ? `Nothing is recorded until you press the button. This item needs ${state.item.approvalsNeeded} approvals of the same answer: yours is one of them, and the agent gets the answer once they are in.`
            : "Nothing is decided until you press the button. The answer is sent to the agent as yours."
        }</p>
${itemLink(state.item)}`,
      };
    case "sign_in":
      return {
        title: "Sign in to answer",
        body: `${summary(state.item)}
<p data-testid="email-answer-sign-in-why">${
          state.why === "sensitive"
            ? "This item is high priority, or names who may answer it: sign in before answering it from an email."
            : "This account asks you to sign in before answering from an email."
        }</p>
<p><a data-testid="email-answer-sign-in" href="/signin?callbackUrl=${encodeURIComponent(self)}">Sign in</a>, and you come back here to confirm.</p>`,
      };
    case "answered":
      return {
        title: "Answered",
        body: `${summary(state.item)}
<p data-testid="email-answer-done">Your answer was recorded and goes to the agent.</p>
<p class="note"><a href="/inbox/${encodeURIComponent(state.item.id)}">Open the item in the Hub</a></p>`,
      };
    case "recorded":
      return {
        title: "Approval recorded",
        body: `${summary(state.item)}
<p data-testid="email-answer-recorded">${state.approvals.have} of ${state.approvals.need} — your approval is recorded.</p>
<p class="note">${
          state.approvals.have >= state.approvals.need
            ? "It still needs an approval from a group the policy requires (the item's page names it); the agent gets the answer then."
            : `The item stays open until it has ${state.approvals.need} approvals of the same answer; the agent gets the answer then.`
        }</p>
${changeOnPage(state.item)}`,
      };
    case "voted":
      return {
        title: "You already answered this item",
        body: `<dl data-testid="email-answer-item">
<dt>Item</dt><dd data-testid="email-answer-title">${escapeHtml(state.item.title)}</dd>
<dt>Your answer</dt><dd><strong data-testid="email-answer-voted">${escapeHtml(state.answer)}</strong></dd>
</dl>
<p>It is recorded as one of the ${state.item.approvalsNeeded ?? ""} approvals this item needs. Nothing was changed now.</p>
${changeOnPage(state.item)}`,
      };
    case "invalid":
      return { title: "This link is not valid", body: "<p>It may be incomplete, or it was not made by this Hub.</p>" };
    case "used":
      return {
        title: "This link was already used",
        body: "<p>Its answer was recorded when it was first confirmed; each answer link works once. Nothing was changed now.</p>",
      };
    case "expired":
      return {
        title: "This link has expired",
        body: "<p>Answer links last seven days, or until the item expires. Nothing was changed.</p>",
      };
    case "closed":
      return {
        title: "This item is no longer waiting",
        body: "<p>It was answered, expired or withdrawn meanwhile. Nothing was changed.</p>",
      };
    case "refused":
      return {
        title: state.reason ? "You cannot answer this item" : "You can no longer answer this item",
        body: state.reason
          ? `<p data-testid="email-answer-reason">${escapeHtml(capitalized(state.reason))}.</p><p>Nothing was changed.</p>`
          : "<p>Your access to it changed since the email was sent. Nothing was changed.</p>",
      };
    case "other_person":
      return {
        title: "This link was sent to someone else",
        body: "<p>You are signed in to the Hub as another person. Nothing was changed.</p>",
      };
    case "cross_site":
      return { title: "Request refused", body: "<p>The answer must be sent from the Hub's own page.</p>" };
  }
}

export function renderPage(state: PageState, token: string): string {
  const { title, body } = content(state, token);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · MA2H Hub</title><style>${STYLE}</style></head>
<body data-testid="email-answer" data-state="${state.kind}"><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}
