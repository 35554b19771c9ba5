/** `ma2h-hub backup <file>` and `ma2h-hub restore <file>`: pg_dump / pg_restore with the Hub's flags (lib/backup). */
import type { Command } from "./command";

function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  return url;
}

export const BACKUP_COMMANDS: Record<string, Command> = {
  backup: {
    usage: "backup <file>",
    args: 1,
    async run([file]) {
      const { backupDatabase } = await import("../lib/backup/dump");
      const r = await backupDatabase(databaseUrl(), file!);
      return {
        json: { backup: { file: r.file, bytes: r.bytes, format: "custom" } },
        text: `backup written to ${r.file} (${r.bytes} bytes, pg_dump custom format); restore with: ma2h-hub restore ${r.file}`,
      };
    },
  },
  restore: {
    usage: "restore <file>",
    args: 1,
    async run([file]) {
      const { restoreDatabase } = await import("../lib/backup/dump");
      const r = await restoreDatabase(databaseUrl(), file!);
      return {
        json: { restore: { file: r.file, tables: r.tables } },
        text: `${r.file} restored (${r.tables} tables); next: npm run db:migrate, then start the Hub`,
      };
    },
  },
};
