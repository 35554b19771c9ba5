import { headers } from "next/headers";
import { env } from "../env";
import { isSameOrigin } from "../http/same-origin";

/**
 * Whether the server action being run was sent by the Hub's own pages (the rule:
 * lib/http/same-origin.ts). Next refuses an action whose Origin differs from the Host, but lets one
 * without any Origin through, so a cookie-authenticated write checks again here.
 */
export async function sentFromOurPages(): Promise<boolean> {
  const h = await headers();
  return isSameOrigin(h.get("origin"), h.get("sec-fetch-site"), env().publicUrl);
}
