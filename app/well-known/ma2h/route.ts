import { capabilityDocument } from "@/lib/capability";
import { json, route } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

/** §8.0 discovery; served at /.well-known/ma2h and /.well-known/ma2h-capability (next.config.ts). */
export const GET = route(async () => json(capabilityDocument(), 200, { "cache-control": "max-age=60" }));
