import { defineConfig } from "prisma/config";

// Prisma's CLI insists on a native schema engine it cannot download on offline machines; `generate`
// only checks that the file exists, so point it at any executable. Migrations run through
// server/migrate.ts on the wasm engine instead (docs/decisions/operations-and-performance.md).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/ma2h" },
});
