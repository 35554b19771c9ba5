import { a2aRouteModule } from "@/lib/http/routes";

export const dynamic = "force-dynamic";

/**
 * The Hub's one A2A Agent Card at `/.well-known/agent-card.json` (next.config.ts rewrites it here;
 * lib/http/routes/index.ts `A2A_MANIFEST`, docs/a2a.md).
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = a2aRouteModule("/.well-known/agent-card.json");
