/**
 * Hand SQL against the one truth of the schema: every `*.sql.ts` file of the Hub is imported, every
 * statement it exports (lib/sql-statement.ts) is planned with `EXPLAIN` for each of its samples on a
 * database the migrations made. A column or table the migrations do not create, a type that does
 * not match, a syntax slip — each fails here in seconds. A statement a file builds but does not
 * export, or exports with no samples and no reason, fails too: nothing hand-written goes unplanned.
 */
// covers: lib/sql-statement.ts
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { isStatement, type Statement } from "@/lib/sql-statement";
import { repoRoot } from "./support/hub";
import { useTestDatabase } from "./support/test-database";

const ROOTS = ["lib", "app", "server", "workers", "cli"];

function sqlFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sqlFiles(path);
    return entry.name.endsWith(".sql.ts") ? [path] : [];
  });
}

const files = ROOTS.flatMap(sqlFiles).sort();
const database = useTestDatabase();

describe("hand SQL (*.sql.ts)", () => {
  it("the scan finds the statement files", () => {
    expect(files.length).toBeGreaterThan(1);
  });

  for (const file of files) {
    it(`${file}: every statement is exported and planned against the migrated schema`, async () => {
      const module = (await import(join(repoRoot, file))) as Record<string, unknown>;
      const statements = Object.entries(module).filter((entry): entry is [string, Statement<unknown[]>] =>
        isStatement(entry[1]),
      );
      // Each `statement(` the file builds is one of its exports (the test can only plan what it sees).
      const built = readFileSync(join(repoRoot, file), "utf8").match(/\bstatement\(/g)?.length ?? 0;
      expect(statements.length, `${file} builds ${built} statements and exports ${statements.length}`).toBe(built);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        for (const [exported, s] of statements) {
          if (!Array.isArray(s.samples)) {
            expect((s.samples as { unplanned: string }).unplanned, `${exported}: why it is not planned`).toMatch(
              /\w{3,}/,
            );
            continue;
          }
          expect(s.samples.length, `${exported} has samples`).toBeGreaterThan(0);
          for (const [i, args] of s.samples.entries()) {
            const sql = s.sql(...args);
            await client.query(`EXPLAIN ${sql.text}`, sql.values as unknown[]).catch((err: Error) => {
              throw new Error(
                `${relative(repoRoot, join(repoRoot, file))} ${exported} (sample ${i}): ${err.message}\n${sql.text}`,
              );
            });
          }
        }
      } finally {
        await client.end();
      }
    });
  }
});
