/**
 * `GET /slack/bind/{token}` and `POST /slack/bind/{token}` (docs/notifications.md "Slack: who
 * clicked"). A signed-out browser is sent to sign in with this page as the way back. A GET only
 * shows what would happen — link scanners open every link — and the POST, from that page's plain
 * form, binds the link's Slack user to the SIGNED-IN person (the link names no person). Like the
 * mail's answer page (app/e/[token]/route.ts) it does not go through the access-logging `route()`:
 * the path is the credential. Every answer is `no-store` and sends no referrer onward.
 */
import { clock } from "@/lib/clock";
import { env } from "@/lib/env";
import { isSameOrigin } from "@/lib/http/same-origin";
import { TOKEN_PAGE_HEADERS, tokenPage } from "@/lib/http/token-page";
import { currentHuman } from "@/lib/next/current-human";
import { redeemBindLink } from "@/lib/notifications/slack/bind-links";
import { previewBindLink } from "@/lib/notifications/slack/bind-preview";
import { type PageState, renderPage, STATUS } from "./view";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ token: string }> };

function page(state: PageState, token: string): Response {
  return tokenPage(renderPage(state, token), STATUS[state.kind]);
}

/** To sign-in, and back here afterwards (the way /settings/* and the answer page do it). */
function signIn(token: string): Response {
  const back = `/slack/bind/${encodeURIComponent(token)}`;
  return new Response(null, {
    status: 303,
    headers: { ...TOKEN_PAGE_HEADERS, location: `/signin?callbackUrl=${encodeURIComponent(back)}` },
  });
}

export async function GET(_req: Request, { params }: Params): Promise<Response> {
  const { token } = await params;
  const human = await currentHuman();
  if (!human) return signIn(token);
  return page(await previewBindLink(token, human.userId, clock.now()), token);
}

export async function POST(req: Request, { params }: Params): Promise<Response> {
  const { token } = await params;
  // The form is ours: a cross-site POST riding the session cookie is refused. Our `no-referrer`
  // policy makes the browser send `Origin: null` on its own form's POST, so a null Origin counts
  // as absent and Sec-Fetch-Site decides (lib/http/same-origin.ts, as app/e/[token]/route.ts).
  const origin = req.headers.get("origin");
  if (!isSameOrigin(origin === "null" ? null : origin, req.headers.get("sec-fetch-site"), env().publicUrl))
    return page({ kind: "cross_site" }, token);
  const human = await currentHuman();
  if (!human) return signIn(token);
  const now = clock.now();
  // The preview names what is bound on the result page, and refuses early with the same reasons.
  const preview = await previewBindLink(token, human.userId, now);
  if (preview.kind !== "ready") return page(preview, token);
  const r = await redeemBindLink(token, human.userId, now);
  if (r.ok) return page({ kind: "bound", preview: preview.preview }, token);
  return page({ kind: r.reason === "slack_user_bound_to_someone_else" ? "bound_elsewhere" : r.reason }, token);
}
