/**
 * The caller of the push routes (#17): only the signed-in person's browser session — these routes
 * are the inbox's own, so no bearer credential is taken — and, for a write, only from the Hub's own
 * pages (lib/http/same-origin.ts): a cookie rides along on any cross-site request.
 */
import { currentHuman } from "@/lib/next/current-human";
import { sentFromOurPages } from "@/lib/next/same-origin";
import { HubError } from "@/lib/protocol/errors";

export async function pushCaller(write: boolean): Promise<{ userId: string }> {
  if (write && !(await sentFromOurPages())) throw new HubError("not_authorized", "cross-site request refused");
  const human = await currentHuman();
  if (!human) throw new HubError("unauthenticated", "sign in to the Hub first");
  return { userId: human.userId };
}
