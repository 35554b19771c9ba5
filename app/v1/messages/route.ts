import { noSuchEndpoint } from "@/lib/http/handler";
import { submitRoute } from "@/lib/http/routes/submit";

export const dynamic = "force-dynamic";

export const POST = submitRoute;

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as GET, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
