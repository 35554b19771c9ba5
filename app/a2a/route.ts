import { a2aRouteModule } from "@/lib/http/routes";

export const dynamic = "force-dynamic";

/** The A2A gateway's JSON-RPC binding (lib/http/routes/index.ts `A2A_MANIFEST`, docs/a2a.md). */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = a2aRouteModule("/a2a");
