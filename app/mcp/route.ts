import { mcpRouteModule } from "@/lib/http/routes";

export const dynamic = "force-dynamic";

/** The Hub's MCP endpoint (lib/http/routes/index.ts `mcpRouteModule`): `POST` only, stateless. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = mcpRouteModule();
