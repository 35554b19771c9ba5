/**
 * The caller of the push routes: only the signed-in person's browser session — these routes
 * are the inbox's own, so no bearer credential is taken — and, for a write, only from the Hub's own
 * pages (the rule: lib/http/same-origin.ts), read from the request itself: a cookie rides along on
 * any cross-site request.
 */
import { env } from "@/lib/env";
import { isSameOrigin } from "@/lib/http/same-origin";
import { currentHuman } from "@/lib/next/current-human";
import { HubError } from "@ma2h/protocol/errors";

export async function pushCaller(req: Request, write: boolean): Promise<{ userId: string }> {
  if (write && !isSameOrigin(req.headers.get("origin"), req.headers.get("sec-fetch-site"), env().publicUrl))
    throw new HubError("not_authorized", "cross-site request refused");
  const human = await currentHuman();
  if (!human) throw new HubError("unauthenticated", "sign in to the Hub first");
  return { userId: human.userId };
}
