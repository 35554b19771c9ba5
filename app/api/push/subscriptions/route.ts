import { json, route } from "@/lib/http/handler";
import { addSubscription } from "@/lib/notifications/web-push/subscriptions";
import { pushCaller } from "../session";

export const dynamic = "force-dynamic";

/**
 * Subscribes the calling browser for the signed-in person: the body is the browser's
 * `PushSubscription.toJSON()`. Posting the same subscription again is harmless (the same device).
 */
export const POST = route(async ({ req, body }) => {
  const { userId } = await pushCaller(req, true);
  const device = await addSubscription(userId, await body(), req.headers.get("user-agent"));
  return json({ id: device.id, label: device.label }, 201);
});
