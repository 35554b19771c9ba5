/** The handler of `GET /v1/openapi.json` (the route table, packages/protocol/src/routes.ts). */
import { env } from "../../env";
import { json, route } from "../handler";
import { openApiDocument } from "../../openapi/document";
import { processWide } from "../../process-wide";

/** The document per public URL: deterministic, so built once (one copy per process). */
const documents = () => processWide("openapi.documents", () => new Map<string, Record<string, unknown>>());

/** The OpenAPI 3.1 description of the protocol routes (docs/api.md); no credential needed. */
export const openApiRoute = route(async () => {
  const url = env().publicUrl;
  const body = documents().get(url) ?? openApiDocument({ serverUrl: url });
  documents().set(url, body);
  return json(body, 200, { "cache-control": "public, max-age=300" });
});
