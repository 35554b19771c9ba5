/**
 * `GET /e/{token}` and `POST /e/{token}` (docs/notifications.md "Answering from the mail"). A
 * GET only shows — mail scanners open every link, so it never spends a token, opens a session or
 * writes an audit row. The POST comes from that page's plain form and decides, through the lib/
 * verb that re-checks everything at that moment. Neither logs the URL (it is the credential), and
 * every answer is `no-store` and sends no referrer onward.
 */
import { env } from "@/lib/env";
import { isSameOrigin } from "@/lib/http/same-origin";
import { tokenPage } from "@/lib/http/token-page";
import { currentHuman } from "@/lib/next/current-human";
import { answerByLink, inspectAnswerLink } from "@/lib/notifications/email-answer";
import { type PageState, renderPage, STATUS } from "./view";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ token: string }> };

function page(state: PageState, token: string): Response {
  return tokenPage(renderPage(state, token), STATUS[state.kind]);
}

export async function GET(_req: Request, { params }: Params): Promise<Response> {
  const { token } = await params;
  const human = await currentHuman();
  return page(await inspectAnswerLink(token, human?.userId ?? null), token);
}

export async function POST(req: Request, { params }: Params): Promise<Response> {
  const { token } = await params;
  // The form is ours: a cross-site POST (a page elsewhere replaying a leaked link) is refused. Our
  // page's `no-referrer` policy makes the browser send `Origin: null` on its own form's POST, so a
  // null Origin counts as absent and the browser's Sec-Fetch-Site decides (lib/http/same-origin.ts).
  const origin = req.headers.get("origin");
  if (!isSameOrigin(origin === "null" ? null : origin, req.headers.get("sec-fetch-site"), env().publicUrl))
    return page({ kind: "cross_site" }, token);
  const human = await currentHuman();
  return page(await answerByLink(token, human?.userId ?? null), token);
}
