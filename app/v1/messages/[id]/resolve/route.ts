import { noSuchEndpoint } from "@/lib/http/handler";
import { resolveRoute } from "@/lib/http/routes/resolve";

export const dynamic = "force-dynamic";

export const POST = resolveRoute;

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
