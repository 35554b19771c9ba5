/**
 * The admin docs screenshots (screenshot-admin-agent.png, screenshot-admin-audit.png), taken from this
 * run in the demo account (owner dana): an agent created and its key rotated in the browser — the new
 * key shown once — and the audit log that records it. Under test-results/screenshots/, or into docs/
 * with `npm run docs:screenshots` (./support/screenshots.ts).
 */
import { expect, signedInContext, test } from "./support/fixtures";
import { screenshotPath } from "./support/screenshots";
import { LOGINS } from "./support/state";

test("screenshots of an agent's keys and of the audit log", async ({ browser }) => {
  const { context, page } = await signedInContext(browser, LOGINS.dana);
  try {
    await page.setViewportSize({ width: 1100, height: 760 });
    await page.goto("/admin/demo/agents");
    await page.getByTestId("agent-id-input").fill("release-bot/web-app");
    await page.getByTestId("create-agent-submit").click();
    await expect(page.getByTestId("create-agent-secret")).toHaveText(/^ma2h_key_/);
    await page.locator('[data-testid="agent-row"][data-agent="release-bot/web-app"] a').click();
    await expect(page.getByTestId("agent-title")).toHaveText("release-bot/web-app");
    await page.getByTestId("rotate-key-submit").click();
    await expect(page.getByTestId("rotate-key-secret")).toHaveText(/^ma2h_key_/);
    await page.screenshot({ path: screenshotPath("screenshot-admin-agent.png"), fullPage: true });

    await page.goto("/admin/demo/audit");
    await expect(page.getByTestId("audit-row").first()).toHaveAttribute("data-event", "key.rotated");
    await page.screenshot({ path: screenshotPath("screenshot-admin-audit.png"), fullPage: true });
  } finally {
    await context.close();
  }
});
