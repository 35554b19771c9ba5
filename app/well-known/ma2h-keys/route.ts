import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { publishedKeys } from "@/lib/keys/signing-keys";

export const dynamic = "force-dynamic";

/** The Hub's public ed25519 keys (JWKS) for §9.2 verification; no credential needed. */
export const GET = route(async () => json(await publishedKeys(), 200, { "cache-control": "max-age=300" }));

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
