/**
 * The bind page as one small static HTML document (docs/notifications.md "Slack: who clicked"),
 * like the mail's answer page (app/e/[token]/view.ts): no script, nothing loaded from anywhere, one
 * form that POSTs back to the same URL. The confirmation names the Slack user (by the name the signed
 * click gave, and the id), the workspace (name, domain, id), the person and the account, because a forwarded link would bind whoever opens it: the person must see
 * that the Slack user is theirs before they confirm. A refusal shows nothing of the account.
 */
import { escapeHtml } from "@/lib/notifications/text";
import type { BindPreview, PreviewState } from "@/lib/notifications/slack/bind-preview";

export type PageState = PreviewState | { kind: "bound"; preview: BindPreview } | { kind: "cross_site" };

/** HTTP status per state: 4xx for every refusal. */
export const STATUS: Record<PageState["kind"], number> = {
  ready: 200,
  bound: 200,
  already_yours: 200,
  invalid: 404,
  used: 410,
  expired: 410,
  no_seat: 403,
  not_connected: 409,
  bound_elsewhere: 409,
  cross_site: 403,
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:10vh auto;padding:0 1rem;color:#1b1b1b}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{color:#555}dd{margin:0}
form{display:inline-block;margin-right:.75rem}
button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #1a5;background:#1a5;color:#fff;cursor:pointer}
a.cancel{display:inline-block;padding:.5rem 1.25rem}
.warn{background:#fff4e5;border-left:4px solid #e08a00;padding:.5rem .75rem}
.note{color:#555;font-size:.9rem}`;

const SETTINGS = `<p class="note"><a href="/settings/slack">Your Slack bindings</a> are listed, and can be removed, in your settings.</p>`;

/** The Slack user as a person recognises them: the name the signed click gave, then the id. */
function slackUser(p: BindPreview, testIds = false): string {
  const tid = (name: string) => (testIds ? ` data-testid="${name}"` : "");
  const id = `<code${tid("slack-bind-user")}>${escapeHtml(p.slackUserId)}</code>`;
  return p.slackUserName
    ? `<strong${tid("slack-bind-user-name")}>@${escapeHtml(p.slackUserName)}</strong> (${id})`
    : id;
}

/** The workspace by its name, its domain when the click gave one, and its id. */
function workspace(p: BindPreview): string {
  const domain = p.teamDomain
    ? ` <span data-testid="slack-bind-team-domain">${escapeHtml(p.teamDomain)}.slack.com</span>`
    : "";
  return `<span data-testid="slack-bind-team">${escapeHtml(p.teamName)}</span>${domain} <code>${escapeHtml(p.teamId)}</code>`;
}

function summary(p: BindPreview): string {
  return `<dl data-testid="slack-bind-summary">
<dt>Slack user</dt><dd>${slackUser(p, true)}</dd>
<dt>Workspace</dt><dd>${workspace(p)}</dd>
<dt>Answers as</dt><dd data-testid="slack-bind-email">${escapeHtml(p.email)}</dd>
<dt>Account</dt><dd data-testid="slack-bind-account">${escapeHtml(p.slug)}</dd>
</dl>`;
}

function content(state: PageState, token: string): { title: string; body: string } {
  const self = `/slack/bind/${encodeURIComponent(token)}`;
  switch (state.kind) {
    case "ready": {
      const p = state.preview;
      return {
        title: "Answer from Slack as you?",
        body: `${summary(p)}
<p class="warn" data-testid="slack-bind-warning">Slack user ${slackUser(p)} of workspace
<strong>${escapeHtml(p.teamName)}</strong> will answer as you (${escapeHtml(p.email)}) in account
<strong>${escapeHtml(p.slug)}</strong>: clicks by that Slack user on MA2H buttons will resolve items as you.
Only continue if that Slack user is you.</p>
${p.slackUserName ? `<p class="note">The name is the one the Slack user gave themselves; check it in Slack (your profile's member ID is <code>${escapeHtml(p.slackUserId)}</code> if it is you).</p>` : ""}
${p.replaces ? `<p data-testid="slack-bind-replaces">It replaces your current Slack user in this account, <code>${escapeHtml(p.replaces)}</code>.</p>` : ""}
<form method="post" action="${escapeHtml(self)}">
<button type="submit" data-testid="slack-bind-confirm">Confirm</button>
</form><a class="cancel" href="/inbox" data-testid="slack-bind-cancel">Cancel</a>
<p class="note">Nothing changes until you press Confirm. The link works once, for 15 minutes.</p>`,
      };
    }
    case "bound":
      return {
        title: "Slack user bound",
        body: `${summary(state.preview)}
<p data-testid="slack-bind-done">Clicks by this Slack user on MA2H buttons in account ${escapeHtml(state.preview.slug)} now answer as you.</p>
${SETTINGS}`,
      };
    case "already_yours":
      return {
        title: "Already bound to you",
        body: `<p>This Slack user already answers as you in this account. Nothing was changed.</p>${SETTINGS}`,
      };
    case "invalid":
      return { title: "This link is not valid", body: "<p>It may be incomplete, or it was not made by this Hub.</p>" };
    case "used":
      return {
        title: "This link was already used",
        body: "<p>Each bind link works once. Nothing was changed now; click a button in Slack again for a new link.</p>",
      };
    case "expired":
      return {
        title: "This link has expired",
        body: "<p>Bind links last 15 minutes. Nothing was changed; click a button in Slack again for a new link.</p>",
      };
    case "no_seat":
      return {
        title: "You cannot bind this Slack user",
        body: "<p>You have no seat in the account this link belongs to. Nothing was changed.</p>",
      };
    case "not_connected":
      return {
        title: "This Slack workspace is no longer connected",
        body: "<p>The account's Slack connection changed since the link was made. Nothing was changed.</p>",
      };
    case "bound_elsewhere":
      return {
        title: "This Slack user answers as someone else",
        body: "<p>Another person in this account has bound this Slack user. They must remove that binding in their settings first. Nothing was changed.</p>",
      };
    case "cross_site":
      return { title: "Request refused", body: "<p>The binding must be confirmed from the Hub's own page.</p>" };
  }
}

export function renderPage(state: PageState, token: string): string {
  const { title, body } = content(state, token);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · MA2H Hub</title><style>${STYLE}</style></head>
<body data-testid="slack-bind" data-state="${state.kind}"><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}
