/**
 * The v0.6 ask in the browser, keyboard only: the options are one radio group (one tab stop, arrows
 * move and select, Home/End, wrapping, Enter answers), the free-form answer (§5.2 `allow_edit` at
 * 0.6) is its last choice — blank refused with a message, the shortcuts silent while typing, the
 * text reaching the agent verbatim with `edited: true` (§6), a listed option with `edited: false`.
 * A 0.5 ask with `allow_edit: true` offers no free-form choice. A purged message's page is its
 * tombstone for a seat holder, 404 for another account's member, 410 for the agent (§8.2, §14.2).
 */
import type { Page } from "@playwright/test";
import pg from "pg";
import { purgeExpiredRetention } from "../lib/messages/retention";
import { releaseDatabase, useDatabase } from "../test/support/provision";
import { api, envelope, expect, marker, pullTerminal, signedInContext, test, type SignedIn } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

let alice: SignedIn;

test.beforeAll(async ({ alice: signedIn }) => {
  alice = signedIn; // the worker's signed-in alice, shared by this file's serial tests
});

const OPTIONS = [
  { value: "ship", label: "Ship to prod now" },
  { value: "hold", label: "Hold for review" },
  { value: "abort", label: "Abort the release" },
];

function ask06(title: string, allowEdit = true): Record<string, unknown> {
  const a = api();
  return envelope("ask", a.agentId, {
    ma2h_version: "0.6",
    title,
    request: { mode: "select", options: OPTIONS, permissions: { allow_edit: allowEdit } },
  });
}

async function open(page: Page, id: string, title: string) {
  const res = await page.goto(`/inbox/${id}`);
  expect(res?.status()).toBe(200);
  await expect(page.getByTestId("item-title")).toHaveText(title);
}

/** Tabs from the top of the page into the option group: its one tab stop. */
async function tabIntoGroup(page: Page): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(() => document.activeElement?.getAttribute("role") === "radio")) return;
  }
  throw new Error("Tab never reached the option group");
}

const focusedTestId = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid ?? null);

test("a 0.6 select with allow_edit: answered in her own words, keyboard only → verbatim, edited: true", async () => {
  const a = api();
  const title = `Free-form ${marker()}`;
  const id = await a.submit(ask06(title));
  const { page } = alice;
  await open(page, id, title);

  await tabIntoGroup(page);
  // One tab stop: nothing is checked, so the first choice.
  expect(await focusedTestId(page)).toBe("option-ship");
  await expect(page.locator('[role="radiogroup"] [role="radio"][tabindex="0"]')).toHaveCount(1);
  await expect(page.getByTestId("free-form-text")).toHaveCount(0);
  for (const _ of OPTIONS) await page.keyboard.press("ArrowDown");
  expect(await focusedTestId(page)).toBe("option-free-form");
  await expect(page.getByTestId("option-free-form")).toHaveAttribute("aria-checked", "true");
  await expect(page.getByTestId("option-ship")).toHaveAttribute("aria-checked", "false");

  // Tab leaves the group for the text field. Blank is not sent, and says why.
  await page.keyboard.press("Tab");
  expect(await focusedTestId(page)).toBe("free-form-text");
  await page.keyboard.press("Control+Enter");
  await expect(page.getByTestId("free-form-error")).toBeVisible();
  await expect(page.getByTestId("free-form-error")).toContainText(/blank|type your answer/i);
  expect((await a.pull(id)).status).toBe("open");

  // Every item shortcut (a, d, e, u, ?) is typed into the text, not acted on.
  const typed = "Hold a day, until the data migration is done? <b>then</b> ship";
  await page.keyboard.type(typed);
  await expect(page.getByTestId("free-form-error")).toHaveCount(0);
  await expect(page.getByTestId("shortcuts")).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/inbox/${id}$`));
  await expect(page.getByTestId("free-form-text")).toHaveValue(typed);
  await page.keyboard.press("Control+Enter");
  await expect(page.getByTestId("outcome")).toContainText("human:alice");
  await expect(page.getByTestId("outcome-edited")).toContainText("in their own words");
  // Shown as plain text: the markup is text, not an element.
  await expect(page.getByTestId("outcome-value")).toHaveText(typed);
  await expect(page.getByTestId("outcome-value").locator("b")).toHaveCount(0);

  const pulled = await pullTerminal(a, id);
  expect(pulled.status).toBe("answered");
  expect(pulled.response.response).toMatchObject({ actor: "human:alice", value: typed, edited: true });
});

test("another 0.6 ask: a listed option chosen with the arrow keys → that value, edited: false", async () => {
  const a = api();
  const title = `Arrows ${marker()}`;
  const id = await a.submit(ask06(title));
  const { page } = alice;
  await open(page, id, title);

  await tabIntoGroup(page);
  const checked = page.locator('[role="radio"][aria-checked="true"]');
  // End → the last choice (free-form), Home → the first; the arrows wrap both ways.
  await page.keyboard.press("End");
  expect(await focusedTestId(page)).toBe("option-free-form");
  await page.keyboard.press("Home");
  expect(await focusedTestId(page)).toBe("option-ship");
  await expect(checked).toHaveAttribute("data-testid", "option-ship");
  await page.keyboard.press("ArrowUp");
  expect(await focusedTestId(page)).toBe("option-free-form");
  await page.keyboard.press("ArrowRight");
  expect(await focusedTestId(page)).toBe("option-ship");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowLeft");
  expect(await focusedTestId(page)).toBe("option-hold");
  await expect(checked).toHaveCount(1);
  await expect(checked).toHaveAttribute("data-testid", "option-hold");
  // Still one tab stop, now the checked choice: Shift+Tab leaves and Tab comes back to it.
  await expect(page.locator('[role="radio"][tabindex="0"]')).toHaveAttribute("data-testid", "option-hold");
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Tab");
  expect(await focusedTestId(page)).toBe("option-hold");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("outcome")).toContainText("human:alice");
  await expect(page.getByTestId("outcome-edited")).toHaveCount(0);

  const pulled = await pullTerminal(a, id);
  expect(pulled.response.response).toMatchObject({ actor: "human:alice", value: "hold", edited: false });
});

test("no free-form choice on a 0.5 ask with allow_edit: true, nor on a 0.6 one without allow_edit", async () => {
  const a = api();
  const { page } = alice;
  const oldTitle = `Old allow_edit ${marker()}`;
  const old = await a.submit(
    envelope("ask", a.agentId, {
      title: oldTitle,
      request: { mode: "select", options: OPTIONS, permissions: { allow_edit: true } },
    }),
  );
  await open(page, old, oldTitle);
  await expect(page.getByTestId("option-ship")).toBeVisible();
  await expect(page.getByTestId("option-free-form")).toHaveCount(0);
  await expect(page.getByText("answer in my own words")).toHaveCount(0);

  const plainTitle = `No allow_edit ${marker()}`;
  const plain = await a.submit(ask06(plainTitle, false));
  await open(page, plain, plainTitle);
  await expect(page.getByTestId("option-ship")).toBeVisible();
  await expect(page.getByTestId("option-free-form")).toHaveCount(0);
});

test("a purged message: its tombstone for a seat holder, 404 for another account, 410 for the agent", async ({
  browser,
}) => {
  const a = api();
  const state = e2eState();
  const title = `Purged ${marker()}`;
  const id = await a.submit(ask06(title));
  const resolved = await a.resolveWithToken(id, state.tokens.acme!.alice!, { resolution: "answered", value: "ship" });
  expect(resolved.status).toBe(200);
  // Only this message is past retention: its terminal time moved back a year; then the purge runs.
  const client = new pg.Client({ connectionString: state.databaseUrl });
  await client.connect();
  try {
    await client.query("UPDATE messages SET terminal_at = now() - interval '400 days' WHERE id = $1", [id]);
  } finally {
    await client.end();
  }
  await useDatabase(state.databaseUrl);
  try {
    await purgeExpiredRetention();
  } finally {
    await releaseDatabase();
  }

  const { page } = alice;
  await open(page, id, title);
  await expect(page.getByTestId("tombstone")).toBeVisible();
  await expect(page.getByTestId("tombstone-outcome")).toContainText("answered by human:alice");
  await expect(page.getByTestId("tombstone-never-reached")).toContainText("never reached the agent (expired at");
  await expect(page.getByTestId("tombstone-purged")).toBeVisible();

  const gina = await signedInContext(browser, LOGINS.gina);
  try {
    const res = await gina.page.goto(`/inbox/${id}`);
    expect(res?.status()).toBe(404);
    await expect(gina.page.locator("body")).not.toContainText(title);
  } finally {
    await gina.context.close();
  }

  const gone = await fetch(`${state.hubUrl}/v1/messages/${id}`, { headers: { authorization: `Bearer ${a.key}` } });
  expect(gone.status).toBe(410);
});
