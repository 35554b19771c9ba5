import { publishedAuditKeys } from "@/lib/audit/checkpoints";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

/**
 * The public ed25519 keys (JWKS) that sign the audit chain's checkpoints (lib/audit/checkpoints.ts):
 * save it to verify an export without the database (`ma2h-hub audit verify --file … --keys …`). No
 * credential needed; only keys the Hub generated itself, retired ones included.
 */
export const GET = route(async () => json(await publishedAuditKeys(), 200, { "cache-control": "max-age=300" }));

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
