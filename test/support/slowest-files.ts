/**
 * A vitest reporter beside the default one: at the end of a run it prints the 15 slowest test files
 * (wall time of their tests and hooks, plus their import), so each CI log says where the time went,
 * and records each file's seconds by tier in test-results/file-durations.json (this run's files
 * updated, files that no longer exist dropped, the rest kept), the table `npm run test:durations`
 * copies to test/support/file-durations.json for test/support/slow-first.ts to order by.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Reporter, TestModule, Vitest } from "vitest/node";

const SHOWN = 15;

export default class SlowestFiles implements Reporter {
  private root = process.cwd();

  onInit(ctx: Vitest): void {
    this.root = ctx.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const all = modules.map((m) => {
      const d = m.diagnostic();
      return { tier: m.project.name, file: m.relativeModuleId, ms: d.duration + d.collectDuration + d.setupDuration };
    });
    const rows = [...all].sort((a, b) => b.ms - a.ms).slice(0, SHOWN);
    if (rows.length === 0) return;
    const lines = rows.map((r) => `  ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.file}`);
    process.stdout.write(`\nThe ${rows.length} slowest test files:\n${lines.join("\n")}\n`);
    this.record(all);
  }

  private record(all: { tier: string; file: string; ms: number }[]): void {
    const path = join(this.root, "test-results", "file-durations.json");
    const table: Record<string, Record<string, number>> = existsSync(path)
      ? JSON.parse(readFileSync(path, "utf8"))
      : {};
    for (const r of all) {
      table[r.tier] = { ...table[r.tier], [r.file]: Math.round(r.ms / 100) / 10 };
    }
    for (const [tier, files] of Object.entries(table)) {
      const kept = Object.entries(files).filter(([file]) => existsSync(join(this.root, file)));
      table[tier] = Object.fromEntries(kept.sort((a, b) => b[1] - a[1]));
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(table, null, 2)}\n`);
  }
}
