import { noSuchEndpoint } from "@/lib/http/handler";
import { pollRoute } from "@/lib/http/routes/poll";

export const dynamic = "force-dynamic";

export const GET = pollRoute;

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
