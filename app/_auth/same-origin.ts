import { headers } from "next/headers";
import { env } from "@/lib/env";

/**
 * A second fence for server actions (docs/decisions.md, "Server actions and CSRF"). Next already
 * refuses an action whose Origin differs from the Host — but lets one without any Origin through
 * with a warning. Here a cookie-authenticated write needs a browser's proof of same origin: an
 * Origin equal to the Hub's public origin or to the Host it was sent to, or, without an Origin,
 * `Sec-Fetch-Site: same-origin`.
 */
export async function assertSameOrigin(): Promise<void> {
  const h = await headers();
  const origin = h.get("origin");
  if (origin) {
    const host = h.get("host");
    try {
      const u = new URL(origin);
      if (u.origin === new URL(env().publicUrl).origin || (host !== null && u.host === host)) return;
    } catch {
      // "null" or garbage: refused below
    }
  } else if (h.get("sec-fetch-site") === "same-origin") {
    return;
  }
  throw new Error("cross-site request refused");
}
