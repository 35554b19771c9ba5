import { json, route } from "@/lib/http/handler";
import { removeDevice } from "@/lib/notifications/web-push/subscriptions";
import { pushCaller } from "../../session";

export const dynamic = "force-dynamic";

/** Removes one of the signed-in person's devices; anyone else's is `404`, like an unknown one. */
export const DELETE = route(async ({ req, params }) => {
  const { userId } = await pushCaller(req, true);
  return json(await removeDevice(userId, params.id ?? ""));
});
