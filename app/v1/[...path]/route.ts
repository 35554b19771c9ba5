import { route } from "@/lib/http/handler";
import { HubError } from "@/lib/protocol/errors";

export const dynamic = "force-dynamic";

/** Any other /v1 path: the §8.5 envelope rather than an HTML 404 page. */
const unknown = route(async () => {
  throw new HubError("not_found", "no such endpoint");
});
export { unknown as GET, unknown as POST, unknown as PUT, unknown as PATCH, unknown as DELETE };
