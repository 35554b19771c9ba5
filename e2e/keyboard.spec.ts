/**
 * Keyboard-first triage, in an account of its own (initech, member kim) so the
 * list is predictable: j/k move the cursor, x selects, Enter/o open, a approves/answers, d declines,
 * ? shows the shortcuts, / focuses the search; bulk decline/complete skip and report what they may not
 * do. Everything but the bulk buttons is done without the mouse.
 */
import type { Page } from "@playwright/test";
import { api, envelope, expect, marker, pullTerminal, test, type SignedIn } from "./support/fixtures";

test.describe.configure({ mode: "serial" });

const a = () => api("initech", "triage-bot");
let kim: SignedIn;

test.beforeAll(async ({ kim: signedIn }) => {
  kim = signedIn; // the worker's signed-in kim, shared by this file's serial tests
});

const rows = (page: Page) => page.getByTestId("inbox-row");
const row = (page: Page, id: string) => page.locator(`[data-testid="inbox-row"][data-id="${id}"]`);

async function rowIds(page: Page): Promise<string[]> {
  return rows(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-id") ?? ""));
}

async function cursorId(page: Page): Promise<string | null> {
  return page
    .locator('[data-testid="inbox-row"][data-cursor="true"]')
    .first()
    .getAttribute("data-id", { timeout: 5_000 });
}

/** Moves the cursor to `id` with j/k only. */
async function cursorTo(page: Page, id: string): Promise<void> {
  await expect(row(page, id)).toBeVisible();
  for (let i = 0; i < 50; i++) {
    const ids = await rowIds(page);
    const at = ids.indexOf((await cursorId(page)) ?? "");
    const want = ids.indexOf(id);
    if (at === want) return;
    await page.keyboard.press(want > at ? "j" : "k");
  }
  throw new Error(`cursor never reached ${id}`);
}

/** A key that resolves may act at once or ask for a confirmation (Enter submits it). */
async function pressAndConfirm(page: Page, key: string): Promise<void> {
  await page.keyboard.press(key);
  const done = await page
    .getByTestId("outcome")
    .waitFor({ state: "visible", timeout: 2_000 })
    .then(
      () => true,
      () => false,
    );
  if (!done) await page.keyboard.press("Enter");
}

async function gotoInbox(page: Page): Promise<void> {
  await page.goto("/inbox");
  await expect(rows(page).first()).toBeVisible();
  // Keys go to the page, not to a focused control.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

test("j/k move the cursor, x selects, ? shows the shortcuts", async () => {
  const t = a();
  const ids: string[] = [];
  for (const priority of ["urgent", "high", "normal"]) {
    ids.push(await t.submit(envelope("ask", t.agentId, { title: `KB ${priority} ${marker()}`, priority })));
  }
  const { page } = kim;
  await gotoInbox(page);
  const listed = await rowIds(page);
  // Open items by priority: ours appear in that order.
  expect(
    ids.map((id) => listed.indexOf(id)).every((v, i, arr) => v >= 0 && (i === 0 || v > (arr[i - 1] as number))),
  ).toBe(true);

  // Exactly one cursor row.
  await expect(page.locator('[data-testid="inbox-row"][data-cursor="true"]')).toHaveCount(1);
  await cursorTo(page, ids[0] as string);
  await page.keyboard.press("j");
  await expect(row(page, ids[1] as string)).toHaveAttribute("data-cursor", "true");
  await page.keyboard.press("j");
  await expect(row(page, ids[2] as string)).toHaveAttribute("data-cursor", "true");
  await page.keyboard.press("k");
  await expect(row(page, ids[1] as string)).toHaveAttribute("data-cursor", "true");
  await expect(row(page, ids[2] as string)).not.toHaveAttribute("data-cursor", "true");

  await page.keyboard.press("x");
  await expect(row(page, ids[1] as string)).toHaveAttribute("data-selected", "true");
  await page.keyboard.press("x");
  await expect(row(page, ids[1] as string)).not.toHaveAttribute("data-selected", "true");

  await page.keyboard.press("?");
  await expect(page.getByTestId("shortcuts")).toBeVisible();
  for (const key of ["j", "k", "x", "a", "d", "e", "/"]) await expect(page.getByTestId("shortcuts")).toContainText(key);
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("shortcuts")).toBeHidden();
});

test("Enter opens, a approves; o opens, d declines — attested to kim", async () => {
  const t = a();
  const approveTitle = `KB approve ${marker()}`;
  const approveId = await t.submit(envelope("ask", t.agentId, { title: approveTitle, priority: "urgent" }));
  const declineTitle = `KB decline ${marker()}`;
  const declineId = await t.submit(envelope("ask", t.agentId, { title: declineTitle, priority: "urgent" }));
  const { page } = kim;

  await gotoInbox(page);
  await cursorTo(page, approveId);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/inbox/${approveId}$`));
  await expect(page.getByTestId("item-title")).toHaveText(approveTitle);
  await pressAndConfirm(page, "a");
  await expect(page.getByTestId("outcome")).toContainText("human:kim");
  const approved = await pullTerminal(t, approveId);
  expect(approved.status).toBe("answered");
  expect(approved.response.response).toMatchObject({ actor: "human:kim", value: "approve" });

  await gotoInbox(page);
  await cursorTo(page, declineId);
  await page.keyboard.press("o");
  await expect(page).toHaveURL(new RegExp(`/inbox/${declineId}$`));
  await pressAndConfirm(page, "d");
  await expect(page.getByTestId("outcome")).toContainText("human:kim");
  const declined = await pullTerminal(t, declineId);
  expect(declined.status).toBe("declined");
  expect(declined.response.response.actor).toBe("human:kim");
});

test("/ focuses the search, which narrows the list by title", async () => {
  const t = a();
  const needle = marker("needle");
  const hit = await t.submit(envelope("ask", t.agentId, { title: `Find ${needle}` }));
  const miss = await t.submit(envelope("ask", t.agentId, { title: `Other ${marker()}` }));
  const { page } = kim;
  await gotoInbox(page);
  await page.keyboard.press("/");
  await expect(page.getByTestId("search")).toBeFocused();
  await page.keyboard.type(needle);
  await expect(row(page, hit)).toBeVisible();
  await expect(row(page, miss)).toHaveCount(0);
});

test("bulk decline and complete skip what they may not do, and say why", async () => {
  const t = a();
  const tag = marker("bulk");
  const asks = [
    // Titles of different shapes: "Bulk ask 1 …" and "Bulk ask 2 …" would be one group of similar asks
    // (docs/inbox.md "Similar asks"), its rows hidden until expanded.
    await t.submit(envelope("ask", t.agentId, { title: `Bulk ask one ${tag}` })),
    await t.submit(envelope("ask", t.agentId, { title: `Bulk ask two ${tag}` })),
  ];
  const locked = await t.submit(
    envelope("ask", t.agentId, {
      title: `Bulk locked ${tag}`,
      request: { mode: "confirm", permissions: { allow_ignore: false } },
    }),
  );
  const tasks = [
    await t.submit(envelope("task", t.agentId, { title: `Bulk task 1 ${tag}` })),
    await t.submit(envelope("task", t.agentId, { title: `Bulk task 2 ${tag}` })),
  ];
  const { page } = kim;
  await gotoInbox(page);
  for (const id of [...asks, locked]) {
    await cursorTo(page, id);
    await page.keyboard.press("x");
    await expect(row(page, id)).toHaveAttribute("data-selected", "true");
  }
  await page.getByTestId("bulk-decline").click();
  await expect(page.getByTestId("bulk-report")).toBeVisible();
  await expect(page.getByTestId("bulk-report")).toContainText(/Bulk locked|allow_ignore|not allowed|permission/i);
  for (const id of asks) {
    const body = await pullTerminal(t, id);
    expect(body.status).toBe("declined");
    expect(body.response.response.actor).toBe("human:kim");
  }
  expect((await t.pull(locked)).status).toBe("open");

  await gotoInbox(page);
  for (const id of tasks) {
    await cursorTo(page, id);
    await page.keyboard.press("x");
  }
  await page.getByTestId("bulk-complete").click();
  for (const id of tasks) {
    const body = await pullTerminal(t, id);
    expect(body.status).toBe("completed");
  }
});
