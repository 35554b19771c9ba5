/**
 * The order files start in: tier by tier (sequence.groupOrder), and within a tier the slowest first,
 * by the seconds each took in a recent CI run (test/support/file-durations.json). On a clean clone
 * vitest has no timings of its own and would start files in discovery order, so a 60-second file
 * could start last and run alone while the other workers idle; started first, it overlaps the rest.
 * A file missing from the table (a new one) starts first, as vitest itself does with unknown files.
 * The table only orders files: a stale entry makes a run slower, never wrong. `npm run
 * test:durations` rewrites it from the last run (test-results/file-durations.json).
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

type Table = Record<string, Record<string, number>>;

const table: Table = JSON.parse(readFileSync(new URL("./file-durations.json", import.meta.url), "utf8"));

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (f: TestSpecification) =>
      table[f.project.name]?.[relative(root, f.moduleId)] ?? Number.POSITIVE_INFINITY;
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        (a.project.name < b.project.name ? -1 : a.project.name > b.project.name ? 1 : 0) ||
        seconds(b) - seconds(a) ||
        (a.moduleId < b.moduleId ? -1 : 1),
    );
  }
}
