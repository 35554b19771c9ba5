/**
 * Where the screenshot specs write. A normal e2e run (`npm test`, `npx playwright test`) writes under
 * test-results/screenshots/ (gitignored), so the committed images in docs/ change only on purpose:
 * `npm run docs:screenshots` sets MA2H_DOCS_SCREENSHOTS=1 and the same specs write docs/screenshot-*.png.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../test/support/hub";

export const refreshDocsScreenshots = process.env.MA2H_DOCS_SCREENSHOTS === "1";

/** The path for `docs/<name>` in a docs refresh, else `test-results/screenshots/<name>`. */
export function screenshotPath(name: string): string {
  const dir = join(repoRoot, refreshDocsScreenshots ? "docs" : "test-results/screenshots");
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
