/**
 * Insights in the browser (docs/inbox.md "Insights"), in the tyrell account (e2e/global-setup.ts):
 * two bots ask; otto (owner) answers three on their pages, nora (member) two through /v1. otto's
 * Admin → Insights shows both people with their answer counts, the 7/30-day switch, the charts as
 * SVG with a title, and a CSV export equal to the page's tables; nora gets 404 there and on the
 * export, and her Settings → My insights shows only her answers. The page's screenshot is
 * docs/screenshot-insights.png (under test-results/screenshots/ unless `npm run docs:screenshots`).
 */
import { api, envelope, expect, signedInContext, test } from "./support/fixtures";
import { screenshotPath } from "./support/screenshots";
import { e2eState, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const ops = api("tyrell", "opsbot/infra");
const release = api("tyrell", "releasebot");

test("owners see everyone's insights and export them; a member sees only her own", async ({ browser }) => {
  const state = e2eState();
  const ids: string[] = [];
  for (const [bot, priority] of [
    [ops, "high"],
    [ops, "urgent"],
    [release, "normal"],
    [ops, "normal"],
    [release, "low"],
    [release, "normal"],
  ] as const) {
    ids.push(await bot.submit(envelope("ask", bot.agentId, { priority })));
  }
  // nora answers two through /v1 with her token
  for (const id of ids.slice(3, 5)) {
    const res = await fetch(`${state.hubUrl}/v1/messages/${id}/resolve`, {
      method: "POST",
      headers: { authorization: `Bearer ${state.tokens.tyrell?.nora}`, "content-type": "application/json" },
      body: JSON.stringify({ resolution: "answered", value: "approve" }),
    });
    expect(res.status).toBe(200);
  }

  const otto = await signedInContext(browser, LOGINS.otto);
  const nora = await signedInContext(browser, LOGINS.nora);
  try {
    for (const id of ids.slice(0, 3)) {
      await otto.page.goto(`/inbox/${id}`);
      await otto.page.getByTestId("option-approve").click();
      const submit = otto.page.getByTestId("submit-answer");
      if (await submit.isVisible().catch(() => false)) await submit.click();
      await expect(otto.page.getByTestId("outcome")).toBeVisible();
    }

    const page = otto.page;
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto("/admin/tyrell/insights");
    await expect(page.getByTestId("tab-insights")).toBeVisible();
    const people = page.getByTestId("insights-by-person");
    await expect(people.locator("tbody tr")).toHaveCount(2);
    await expect(people.locator("tr", { hasText: "human:otto" }).locator("td").first()).toHaveText("3");
    await expect(people.locator("tr", { hasText: "human:nora" }).locator("td").first()).toHaveText("2");
    await expect(page.getByTestId("insights-answer-time").locator("td").first()).toHaveText("5");
    await expect(page.getByTestId("insights-rubber-stamp").locator("tr", { hasText: "human:otto" })).toBeVisible();
    await expect(page.getByTestId("chart-heatmap").locator("svg > title")).toHaveText("Asks per hour (UTC)");
    await expect(page.getByTestId("chart-by-person").locator("svg")).toHaveAttribute("role", "img");
    await expect(page.getByTestId("window-30")).toHaveAttribute("aria-current", "page");
    await page.screenshot({ path: screenshotPath("screenshot-insights.png"), fullPage: true });

    // the CSV says what the page shows
    const csv = await (await page.request.get("/admin/tyrell/insights/export?days=30&format=csv")).text();
    expect(csv).toContain("by-person,human:otto,answers,3\r\n");
    expect(csv).toContain("by-person,human:nora,answers,2\r\n");
    const p50 = await people.locator("tr", { hasText: "human:otto" }).locator("td").nth(1).textContent();
    expect(csv).toContain(`by-person,human:otto,p50 (s),${p50}\r\n`);
    await page.getByTestId("window-7").click();
    await expect(page.getByTestId("window-7")).toHaveAttribute("aria-current", "page");
    await expect(page.getByTestId("insights-answer-time").locator("td").first()).toHaveText("5");

    // nora: 404 on the account's page and export; her own view has only her answers
    expect((await nora.page.goto("/admin/tyrell/insights"))?.status()).toBe(404);
    expect((await nora.page.request.get("/admin/tyrell/insights/export?format=csv")).status()).toBe(404);
    await nora.page.goto("/settings/insights");
    await expect(nora.page.getByTestId("insights-answer-time").locator("td").first()).toHaveText("2");
    await expect(nora.page.getByTestId("insights-by-person")).toHaveCount(0);
    await expect(nora.page.getByTestId("insights-rubber-stamp")).not.toContainText("human:otto");
    const own = await (await nora.page.request.get("/settings/insights/export?format=csv")).text();
    expect(own).toContain("answer-time,all,answers,2\r\n");
    expect(own).not.toContain("otto");
  } finally {
    await otto.context.close();
    await nora.context.close();
  }
});
