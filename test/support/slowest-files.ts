/**
 * A vitest reporter beside the default one: at the end of a run it prints the 15 slowest test files
 * (wall time of their tests and hooks, plus their import), so each CI log says where the time went.
 */
import type { Reporter, TestModule } from "vitest/node";

const SHOWN = 15;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.relativeModuleId, ms: d.duration + d.collectDuration + d.setupDuration };
      })
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN);
    if (rows.length === 0) return;
    const lines = rows.map((r) => `  ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.file}`);
    process.stdout.write(`\nThe ${rows.length} slowest test files:\n${lines.join("\n")}\n`);
  }
}
