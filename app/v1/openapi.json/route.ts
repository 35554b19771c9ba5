import { env } from "@/lib/env";
import { json, noSuchEndpoint, route } from "@/lib/http/handler";
import { openApiDocument } from "@/lib/openapi/document";

export const dynamic = "force-dynamic";

let cached: { url: string; body: Record<string, unknown> } | undefined;

/** The OpenAPI 3.1 description of the protocol routes (docs/api.md); no credential needed. */
export const GET = route(async () => {
  const url = env().publicUrl;
  if (cached?.url !== url) cached = { url, body: openApiDocument({ serverUrl: url }) };
  return json(cached.body, 200, { "cache-control": "public, max-age=300" });
});

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };
