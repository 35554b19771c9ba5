/** The per-file database of a vitest file (vitest hooks: only vitest files import this module). */
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase } from "./database";
import { releaseDatabase, useDatabase } from "./provision";

/**
 * A test file's own database: a fresh clone of the migrated template, with this process's lib/
 * pointed at it, released and dropped when the file ends. Call it at the top of the file, before
 * any other hook: vitest runs after-hooks in reverse, so the drop comes after the file's own
 * teardown (stopping the hubs that use it).
 */
export function useTestDatabase(): { readonly url: string } {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    await useDatabase(database.url);
  });
  afterAll(async () => {
    await releaseDatabase();
    await database?.drop();
  });
  return {
    get url(): string {
      if (!database) throw new Error("the test database exists inside hooks and tests only");
      return database.url;
    },
  };
}
