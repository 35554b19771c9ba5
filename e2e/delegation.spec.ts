/**
 * Out of office and hand-overs in the browser (docs/policies.md "Delegation", "Reassignment"), in
 * the stark account, whose policy asks bob of the review bot's asks; group finance is finn
 * (e2e/global-setup.ts). bob names carol on Settings → Out of office; carol answers the bot's ask on
 * its page — "Answered by human:carol for bob", the agent's Response has her as the actor. bob hands
 * a second ask to group finance from its page, with a note: the page lists the hand-over; finn, not
 * asked before, answers it. bob ends his delegation: carol may no longer answer a third ask.
 */
import { api, envelope, expect, marker, pullTerminal, signedInContext, type SignedIn, test } from "./support/fixtures";
import { LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const bot = api("stark", "reviewbot");
let bob: SignedIn;
let carol: SignedIn;
let finn: SignedIn;

async function submit(): Promise<{ id: string; title: string }> {
  const title = `Review ${marker()}`;
  return { id: await bot.submit(envelope("ask", bot.agentId, { title })), title };
}

async function answerApprove(s: SignedIn, id: string): Promise<void> {
  await s.page.goto(`/inbox/${id}`);
  await s.page.getByTestId("option-approve").click();
  const submitButton = s.page.getByTestId("submit-answer");
  if (await submitButton.isVisible().catch(() => false)) await submitButton.click();
  await expect(s.page.getByTestId("outcome")).toBeVisible();
}

test.beforeAll(async ({ browser }) => {
  bob = await signedInContext(browser, LOGINS.starksBob);
  carol = await signedInContext(browser, LOGINS.starksCarol);
  finn = await signedInContext(browser, LOGINS.starksFinn);
});

test.afterAll(async () => {
  await bob?.context.close();
  await carol?.context.close();
  await finn?.context.close();
});

test("bob names carol while away; she answers his ask, for bob", async () => {
  const { page } = bob;
  await page.goto("/settings/delegation");
  const panel = page.getByTestId("delegation-stark");
  await expect(panel.getByTestId("delegation-none")).toBeVisible();
  await panel.getByTestId("delegation-delegate").selectOption("carol");
  const until = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
  await panel.getByTestId("delegation-until").fill(until);
  await panel.getByTestId("set-delegation-stark-submit").click();
  await expect(panel.getByTestId("set-delegation-stark-ok")).toContainText("carol answers for you in stark");
  await page.reload();
  await expect(page.getByTestId("delegation-stark").getByTestId("delegation-current")).toContainText("carol");
  await expect(page.getByTestId("delegation-stark").getByTestId("delegation-current")).toContainText("(now)");

  const ask = await submit();
  await answerApprove(carol, ask.id);
  await expect(carol.page.getByTestId("outcome")).toContainText("Answered by human:carol");
  await expect(carol.page.getByTestId("outcome-for")).toHaveText("for bob");
  const terminal = await pullTerminal(bot, ask.id);
  expect(terminal.response.response.actor).toBe("human:carol");
});

test("bob hands an ask to group finance with a note; finn answers it", async () => {
  const ask = await submit();
  // finn is not asked yet: he reads it but cannot answer.
  await finn.page.goto(`/inbox/${ask.id}`);
  await expect(finn.page.getByTestId("cannot-resolve")).toBeVisible();
  const { page } = bob;
  await page.goto(`/inbox/${ask.id}`);
  await page.getByTestId("reassign-to").selectOption("group:finance");
  await page.getByTestId("reassign-note").fill("finance owns this one");
  await page.getByTestId("reassign-submit").click();
  await expect(page.getByTestId("reassign-ok")).toContainText("Handed to group:finance (human:finn)");
  await page.reload();
  await expect(page.getByTestId("handover")).toContainText("Handed to group:finance by human:bob");
  await expect(page.getByTestId("handover")).toContainText("finance owns this one");
  await answerApprove(finn, ask.id);
  await expect(finn.page.getByTestId("outcome")).toContainText("Answered by human:finn");
});

test("bob ends his delegation: carol may no longer answer", async () => {
  const { page } = bob;
  await page.goto("/settings/delegation");
  await page.getByTestId("clear-delegation-stark-submit").click();
  // The form goes with the delegation it ended: the account's panel says nobody answers for him.
  await expect(page.getByTestId("delegation-stark").getByTestId("delegation-none")).toBeVisible();
  const ask = await submit();
  await carol.page.goto(`/inbox/${ask.id}`);
  await expect(carol.page.getByTestId("cannot-resolve")).toContainText("does not ask you");
});
