/**
 * Similar asks answered together (docs/inbox.md "Similar asks"), in oscorp, whose owner norman is
 * this spec's own person (e2e/global-setup.ts). Three confirm asks "Deploy build #141/#142/#143" of
 * one bot fold into one row "Deploy build #… ×3" beside a lone ask of another shape; expanded, it
 * lists the three as normal rows; one click on its Approve answers all three (the report lists each,
 * the agent's GET of each has norman's approve), and the row is gone. Then the keyboard: two more
 * similar asks, the cursor on their group, `x` selects both, `2` answers the selection with the
 * second shared option (Deny). "Answer selected" is disabled for a confirm and a select ask together,
 * offered with the options for the confirm alone. The screenshot of the expanded group is `screenshot-similar-asks.png`.
 */
import type { Page } from "@playwright/test";
import { api, envelope, expect, pullTerminal, signedInContext, type SignedIn, test } from "./support/fixtures";
import { screenshotPath } from "./support/screenshots";
import { LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const bot = api("oscorp", "buildbot");
let norman: SignedIn;
let lone = "";

const submit = (title: string) => bot.submit(envelope("ask", bot.agentId, { title, request: { mode: "confirm" } }));
const groupRows = (page: Page) => page.getByTestId("similar-group");
const row = (page: Page, id: string) => page.locator(`[data-testid="inbox-row"][data-id="${id}"]`);

test.beforeAll(async ({ browser }) => {
  lone = await submit("Publish the release notes for web-app");
  norman = await signedInContext(browser, LOGINS.norman);
});

test.afterAll(async () => {
  await norman?.context.close();
});

test("three same-shape asks are one row ×3; expanded they are three rows; one click answers all three", async () => {
  const ids = [];
  for (const n of [141, 142, 143]) ids.push(await submit(`Deploy build #${n}`));
  const { page } = norman;
  await page.goto("/inbox");
  const group = groupRows(page);
  await expect(group).toHaveCount(1);
  await expect(group).toHaveAttribute("data-count", "3");
  await expect(group.getByTestId("group-toggle")).toHaveText("▸ Deploy build #… ×3");
  // Collapsed: the members are not listed; the lone ask of another shape is its own row.
  for (const id of ids) await expect(row(page, id)).toHaveCount(0);
  await expect(row(page, lone)).toBeVisible();

  await group.getByTestId("group-toggle").click();
  await expect(group.getByTestId("group-toggle")).toHaveAttribute("aria-expanded", "true");
  for (const [i, id] of ids.entries()) {
    await expect(group.locator(`[data-testid="inbox-row"][data-id="${id}"]`)).toBeVisible();
    await expect(row(page, id).locator(".row-title")).toHaveText(`Deploy build #${141 + i}`);
    await expect(row(page, id).locator(".row-title")).toHaveAttribute("href", `/inbox/${id}`);
  }
  await page.screenshot({ path: screenshotPath("screenshot-similar-asks.png") });

  await group.locator('[data-testid="group-answer"][data-value="approve"]').click();
  const report = page.getByTestId("group-report");
  await expect(report).toBeVisible();
  await expect(report.locator("strong")).toHaveText("“approve”: 3 answered");
  for (const id of ids)
    await expect(report.locator(`[data-testid="group-result"][data-id="${id}"]`)).toHaveAttribute(
      "data-outcome",
      "answered",
    );
  for (const id of ids) {
    const done = await pullTerminal(bot, id);
    expect(done.status).toBe("answered");
    expect(done.response.response).toMatchObject({ actor: "human:norman", value: "approve" });
  }
  // Answered, they no longer group: each is its own closed row; the lone ask is still open.
  await expect(groupRows(page)).toHaveCount(0);
  for (const id of ids) await expect(row(page, id)).toHaveClass(/row-closed/);
  expect((await bot.pull(lone)).status).toBe("open");
});

test("keyboard: the cursor on a group, x selects its asks, 2 answers them with the second option", async () => {
  const ids = [await submit("Deploy build #144"), await submit("Deploy build #145")];
  const { page } = norman;
  await page.goto("/inbox");
  const group = groupRows(page);
  await expect(group).toHaveAttribute("data-count", "2");
  const head = group.locator("[data-nav^='group:']");
  // The lone ask is older, so it is first; j moves the cursor onto the group's header.
  await expect(row(page, lone)).toHaveAttribute("data-cursor", "true");
  await page.keyboard.press("j");
  await expect(head).toHaveAttribute("data-cursor", "true");
  await page.keyboard.press("x");
  await expect(page.locator(".toolbar-count")).toHaveText("2 selected");
  await expect(page.locator('[data-testid="bulk-answer"][data-value="deny"]')).toBeEnabled();
  await page.keyboard.press("2");
  const report = page.getByTestId("group-report");
  await expect(report.locator("strong")).toHaveText("“deny”: 2 answered");
  for (const id of ids) {
    const done = await pullTerminal(bot, id);
    expect(done.response.response).toMatchObject({ actor: "human:norman", value: "deny" });
  }
  expect((await bot.pull(lone)).status).toBe("open");
});

test("answer selected is offered only while the selected asks share mode and options", async () => {
  const pick = await bot.submit(
    envelope("ask", bot.agentId, {
      title: "Pick a region for web-app",
      request: {
        mode: "select",
        options: [
          { value: "eu", label: "EU" },
          { value: "us", label: "US" },
        ],
      },
    }),
  );
  const { page } = norman;
  await page.goto("/inbox");
  await row(page, lone).locator(".row-check").check();
  await row(page, pick).locator(".row-check").check();
  await expect(page.locator(".toolbar-count")).toHaveText("2 selected");
  await expect(page.getByTestId("bulk-answer")).toHaveCount(1);
  await expect(page.getByTestId("bulk-answer")).toBeDisabled();
  await row(page, pick).locator(".row-check").uncheck();
  await expect(page.locator('[data-testid="bulk-answer"][data-value="approve"]')).toBeEnabled();
  await expect(page.locator('[data-testid="bulk-answer"][data-value="deny"]')).toHaveText("Answer selected: Deny");
  await page.keyboard.press("Escape");
  await expect(page.locator(".toolbar-count")).toHaveText("Select with x or the boxes");
  expect((await bot.pull(pick)).status).toBe("open");
});
