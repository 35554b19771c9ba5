/**
 * Quorum approvals in the inbox (docs/policies.md "Quorum"), in the wayne account, whose policy asks
 * two approvals of a `deploybot/prod` confirm ask from alice and bob (group sre) and sam, never the
 * bot's sponsor — sam (e2e/global-setup.ts). alice approves on the item page: "1 of 2 — your
 * approval is recorded", the line "1 of 2 approvals — alice: approve, hh:mm" on her page and row,
 * the item still open and the agent's GET still `open`; bob sees the line on reload and approves:
 * answered, the agent's GET has the Response with bob its actor. sam sees no answer buttons, with
 * the reason. A second ask: alice approves from the list (`a`), withdraws on the item page (the line
 * updates), bob's approval is then one of two. The audit export has every vote. Three sign-ins.
 */
import type { Page } from "@playwright/test";
import { api, envelope, expect, marker, pullTerminal, signedInContext, type SignedIn, test } from "./support/fixtures";
import { LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const bot = api("wayne", "deploybot/prod");
let alice: SignedIn;
let bob: SignedIn;
let sam: SignedIn;
let first = { id: "", title: "" };
let second = { id: "", title: "" };

/** A vote's time, as the page shows it in the reader's local time: "10:02". */
const HHMM = "\\d\\d:\\d\\d";

/**
 * `label` keeps the two asks' titles of different shapes: two open asks titled alike but for their
 * digits would be one group of similar asks in the list (docs/inbox.md "Similar asks"), rows hidden.
 */
async function submitDeploy(label: string): Promise<{ id: string; title: string }> {
  const title = `Deploy to prod, ${label} ${marker()}`;
  const id = await bot.submit(envelope("ask", bot.agentId, { title, request: { mode: "confirm" } }));
  return { id, title };
}

async function open(page: Page, item: { id: string; title: string }): Promise<void> {
  const res = await page.goto(`/inbox/${item.id}`);
  expect(res?.status()).toBe(200);
  await expect(page.getByTestId("item-title")).toHaveText(item.title);
}

async function approveOnPage(page: Page): Promise<void> {
  await page.getByTestId("option-approve").click();
  // A confirm may submit on the choice itself; otherwise the submit button does.
  const submit = page.getByTestId("submit-answer");
  if (await submit.isVisible().catch(() => false)) await submit.click();
}

const row = (page: Page, id: string) => page.locator(`[data-testid="inbox-row"][data-id="${id}"]`);

/** Puts the list's cursor on the item (a click on its row, away from its link) and presses `a`. */
async function answerFromList(page: Page, id: string): Promise<void> {
  await row(page, id).locator(".prio").click();
  await expect(row(page, id)).toHaveAttribute("data-cursor", "true");
  await page.keyboard.press("a");
}

test.beforeAll(async ({ browser }) => {
  first = await submitDeploy("first");
  second = await submitDeploy("second");
  alice = await signedInContext(browser, LOGINS.waynesAlice);
  bob = await signedInContext(browser, LOGINS.waynesBob);
  sam = await signedInContext(browser, LOGINS.waynesSam);
});

test.afterAll(async () => {
  await alice?.context.close();
  await bob?.context.close();
  await sam?.context.close();
});

test("alice approves: 1 of 2, recorded, still open for her, for bob on reload and for the agent; bob's approval answers it", async () => {
  const { page } = alice;
  await open(page, first);
  // Before any vote: the count it needs, and nothing to withdraw.
  await expect(page.getByTestId("approvals")).toHaveText("0 of 2 approvals");
  await expect(page.getByTestId("withdraw-approval")).toHaveCount(0);
  await approveOnPage(page);
  await expect(page.getByTestId("approval-recorded")).toHaveText("1 of 2 — your approval is recorded");
  await expect(page.getByTestId("approvals")).toHaveText(new RegExp(`^1 of 2 approvals — alice: approve, ${HHMM}$`));
  await expect(page.locator(".item-badges .status")).toHaveText("open");
  await expect(page.getByTestId("outcome")).toHaveCount(0);
  // She may still change her answer: the options stay, and her withdraw button is there.
  await expect(page.getByTestId("option-deny")).toBeVisible();
  await expect(page.getByTestId("withdraw-approval")).toBeVisible();
  // The agent sees nothing new.
  const pulled = await bot.pull(first.id);
  expect(pulled.status).toBe("open");
  expect(pulled.response).toBeUndefined();

  // In her list, the item is open with its line.
  await page.goto("/inbox");
  await expect(row(page, first.id).locator(".status")).toHaveText("open");
  await expect(row(page, first.id).getByTestId("row-approvals")).toHaveText(
    new RegExp(`^1 of 2 approvals — alice: approve, ${HHMM}$`),
  );

  // bob, on (re)load: the line on his row and his item page; no withdraw button, as he has no vote.
  await bob.page.goto("/inbox");
  await expect(row(bob.page, first.id).getByTestId("row-approvals")).toContainText("1 of 2 approvals — alice: approve");
  await open(bob.page, first);
  await expect(bob.page.getByTestId("approvals")).toHaveText(
    new RegExp(`^1 of 2 approvals — alice: approve, ${HHMM}$`),
  );
  await expect(bob.page.getByTestId("withdraw-approval")).toHaveCount(0);
  await bob.page.getByTestId("comment").fill("second pair of eyes");
  await approveOnPage(bob.page);
  await expect(bob.page.getByTestId("outcome")).toContainText("human:bob");
  await expect(bob.page.getByTestId("approval-recorded")).toHaveCount(0);
  await expect(bob.page.getByTestId("approvals")).toHaveText(
    new RegExp(`^2 of 2 approvals — alice: approve, ${HHMM}; bob: approve, ${HHMM}$`),
  );

  const done = await pullTerminal(bot, first.id);
  expect(done.status).toBe("answered");
  expect(done.response.response).toMatchObject({
    actor: "human:bob",
    value: "approve",
    comment: "second pair of eyes",
  });
});

test("the sponsor sees no answer buttons, and why", async () => {
  const { page } = sam;
  await open(page, second);
  await expect(page.getByTestId("cannot-resolve")).toContainText(
    "the account's approval policy (rule prod-deploys) does not ask you: sponsor of this agent",
  );
  await expect(page.getByTestId("option-approve")).toHaveCount(0);
  await expect(page.getByTestId("submit-answer")).toHaveCount(0);
  await expect(page.getByTestId("decline")).toHaveCount(0);
  // From the list, `a` on the row says the same and answers nothing.
  await page.goto("/inbox");
  await answerFromList(page, second.id);
  await expect(page.getByRole("status").filter({ hasText: second.title })).toContainText("sponsor of this agent");
  expect((await bot.pull(second.id)).status).toBe("open");
});

test("alice approves from the list, withdraws on the item page; bob's approval is then one of two", async () => {
  const { page } = alice;
  await page.goto("/inbox");
  await answerFromList(page, second.id);
  await expect(page.getByRole("status").filter({ hasText: second.title })).toHaveText(
    `${second.title}: 1 of 2 — your approval is recorded`,
  );
  await expect(row(page, second.id).locator(".status")).toHaveText("open");
  await expect(row(page, second.id).getByTestId("row-approvals")).toContainText("1 of 2 approvals — alice: approve");

  await open(page, second);
  await page.getByTestId("withdraw-approval").click();
  await expect(page.getByTestId("approval-recorded")).toHaveText("Your approval is withdrawn.");
  await expect(page.getByTestId("approvals")).toHaveText("0 of 2 approvals");
  await expect(page.getByTestId("withdraw-approval")).toHaveCount(0);
  // Her list row no longer carries a line (no votes).
  await page.goto("/inbox");
  await expect(row(page, second.id).getByTestId("row-approvals")).toHaveCount(0);

  await open(bob.page, second);
  await approveOnPage(bob.page);
  await expect(bob.page.getByTestId("approval-recorded")).toHaveText("1 of 2 — your approval is recorded");
  await expect(bob.page.getByTestId("approvals")).toHaveText(new RegExp(`^1 of 2 approvals — bob: approve, ${HHMM}$`));
  expect((await bot.pull(second.id)).status).toBe("open");
});

test("the audit export has every vote on both asks", async () => {
  const res = await alice.context.request.get("/admin/wayne/audit/export?kind=approval.*");
  expect(res.status()).toBe(200);
  const lines = (await res.text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { event: string; actor: string; message_id: string; detail: unknown });
  const of = (id: string) => lines.filter((l) => l.message_id === id).map((l) => `${l.event} ${l.actor}`);
  expect(of(first.id)).toEqual(["approval.recorded human:alice", "approval.recorded human:bob"]);
  expect(of(second.id)).toEqual([
    "approval.recorded human:alice",
    "approval.withdrawn human:alice",
    "approval.recorded human:bob",
  ]);
  expect(lines.find((l) => l.message_id === second.id && l.event === "approval.withdrawn")?.detail).toEqual({
    answer: "approve",
  });
});
