/**
 * `npm run db:check` (`node bin/run.mjs migrate check`, CI's step after the migrations): the
 * migrations, applied to a throwaway in-memory PGlite, must make the database prisma/schema.prisma
 * describes. It agrees on this repository, and disagrees — naming the missing migration's SQL,
 * writing nothing — on a copy of the schema with a field no migration adds. In this process (the
 * command line only prints the message and exits 1 on a disagreement): each run boots PGlite, the
 * slow part, and the second boot reuses the first one's compiled wasm.
 */
// covers: server/migrate.ts, server/migrate-cli.ts
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkMigrations } from "../server/migrate";
import { repoRoot } from "./support/hub";

const scratch = join(repoRoot, "test-results", `migrations-check-${process.pid}`);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("migrate check", () => {
  it("agrees on this repository, disagrees on a field no migration adds", async () => {
    mkdirSync(scratch, { recursive: true });
    const schema = readFileSync(join(repoRoot, "prisma/schema.prisma"), "utf8");
    const drifted = schema.replace(/(model HubVapidKeys \{\n)/, '$1  driftProbe String? @map("drift_probe")\n');
    expect(drifted).not.toBe(schema);
    const copy = join(scratch, "schema.prisma");
    writeFileSync(copy, drifted);
    const migrations = readdirSync(join(repoRoot, "prisma/migrations")).sort();

    expect(await checkMigrations()).toEqual({
      agree: true,
      message: "prisma/schema.prisma and prisma/migrations/ agree.",
    });
    const disagree = await checkMigrations(copy);
    expect(disagree.agree).toBe(false);
    expect(disagree.message).toContain("and prisma/migrations/ disagree");
    expect(disagree.message).toMatch(/ALTER TABLE "hub_vapid_keys" ADD COLUMN\s+"drift_probe" TEXT/);
    // Nothing written: the check is not `migrate dev`.
    expect(readdirSync(join(repoRoot, "prisma/migrations")).sort()).toEqual(migrations);
  }, 120_000);
});
