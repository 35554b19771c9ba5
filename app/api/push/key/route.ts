import { json, route } from "@/lib/http/handler";
import { vapidPublicKey } from "@/lib/notifications/web-push/vapid";
import { pushCaller } from "../session";

export const dynamic = "force-dynamic";

/** The Hub's VAPID public key (RFC 8292), the browser's `applicationServerKey`; generated on first need. */
export const GET = route(async ({ req }) => {
  await pushCaller(req, false);
  return json({ public_key: await vapidPublicKey() });
});
