import { capabilityDocument } from "@/lib/capability";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

/** §8.0 discovery; served at /.well-known/ma2h and /.well-known/ma2h-capability (next.config.ts). */
export const GET = route(async () => json(capabilityDocument(), 200, { "cache-control": "max-age=60" }));

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
