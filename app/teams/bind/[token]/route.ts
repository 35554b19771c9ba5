/**
 * `GET /teams/bind/{token}` and `POST /teams/bind/{token}` (docs/notifications.md "Microsoft Teams:
 * who may click"). A signed-out browser is sent to sign in with this page as the way back. A GET only
 * shows what would happen (link scanners open every link); the POST, from that page's own form,
 * binds the link's Teams user to the SIGNED-IN person. Like Slack's bind page, the path is the
 * credential: every answer is `no-store` and sends no referrer onward.
 */
import { clock } from "@/lib/clock";
import { env } from "@/lib/env";
import { isSameOrigin } from "@/lib/http/same-origin";
import { TOKEN_PAGE_HEADERS, tokenPage } from "@/lib/http/token-page";
import { currentHuman } from "@/lib/next/current-human";
import { checkTeamsBindLink, redeemTeamsBindLink } from "@/lib/notifications/teams/bind-links";
import { escapeHtml } from "@/lib/notifications/text";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ token: string }> };

function page(state: string, title: string, body: string, status: number): Response {
  return tokenPage(
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · MA2H Hub</title></head>
<body data-testid="teams-bind" data-state="${state}"><main style="font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:10vh auto;padding:0 1rem">
<h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
    status,
  );
}

function signIn(token: string): Response {
  const back = `/teams/bind/${encodeURIComponent(token)}`;
  return new Response(null, {
    status: 303,
    headers: { ...TOKEN_PAGE_HEADERS, location: `/signin?callbackUrl=${encodeURIComponent(back)}` },
  });
}

const INVALID = () =>
  page(
    "invalid",
    "This link is not valid",
    "<p>It may be incomplete, expired (links last 15 minutes), or not made by this Hub. Click an answer in Teams again for a new link.</p>",
    404,
  );

export async function GET(_req: Request, { params }: Params): Promise<Response> {
  const { token } = await params;
  const human = await currentHuman();
  if (!human) return signIn(token);
  const link = checkTeamsBindLink(token, clock.now());
  if (!link) return INVALID();
  return page(
    "ready",
    "Answer from Teams as you?",
    `<p data-testid="teams-bind-warning">The Teams user <code>${escapeHtml(link.teamsUserId)}</code> of tenant
<code>${escapeHtml(link.tenantId)}</code> will answer as you (${escapeHtml(human.email)}): its clicks on MA2H cards
will resolve items as you. Only continue if that Teams user is you.</p>
<form method="post" action="/teams/bind/${escapeHtml(encodeURIComponent(token))}"><button type="submit" data-testid="teams-bind-confirm">Confirm</button></form>
<p>Nothing changes until you press Confirm.</p>`,
    200,
  );
}

export async function POST(req: Request, { params }: Params): Promise<Response> {
  const { token } = await params;
  const origin = req.headers.get("origin");
  if (!isSameOrigin(origin === "null" ? null : origin, req.headers.get("sec-fetch-site"), env().publicUrl))
    return page("cross_site", "Request refused", "<p>The binding must be confirmed from the Hub's own page.</p>", 403);
  const human = await currentHuman();
  if (!human) return signIn(token);
  const r = await redeemTeamsBindLink(token, human.userId, clock.now());
  if (r.ok)
    return page(
      "bound",
      "Teams user bound",
      `<p data-testid="teams-bind-done">Clicks by this Teams user on MA2H cards in account ${escapeHtml(r.slug)} now answer as you.</p>`,
      200,
    );
  if (r.reason === "invalid") return INVALID();
  const why = {
    no_seat: [
      "You cannot bind this Teams user",
      "You have no seat in the account this link belongs to. Nothing was changed.",
      403,
    ],
    not_connected: [
      "This Teams bot is no longer connected",
      "The account's Teams connection changed since the link was made. Nothing was changed.",
      409,
    ],
    bound_elsewhere: [
      "This Teams user answers as someone else",
      "Another person in this account has bound this Teams user. Nothing was changed.",
      409,
    ],
  } as const;
  const [title, text, status] = why[r.reason];
  return page(r.reason, title, `<p>${text}</p>`, status);
}
