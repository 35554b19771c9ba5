/**
 * Standing rules in the browser (docs/policies.md "Standing rules"), in the stark account whose
 * policy asks bob of the review bot's asks (e2e/global-setup.ts). bob answers a "Rule check #1" ask
 * with **Answer and remember**, narrowed to titles like "Rule check #*", the scope shown in words
 * before saving; the next "Rule check #2" is answered at its submit by the rule — its page says a
 * standing rule set by bob answered it, the agent's Response has `system:rule/…` as its actor. bob's
 * Settings → Standing rules lists it with one answer; he revokes it and the next ask stays open.
 * (The title pattern keeps the rule off delegation.spec.ts's asks of the same bot.)
 */
import { api, envelope, expect, marker, pullTerminal, signedInContext, type SignedIn, test } from "./support/fixtures";
import { LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const bot = api("stark", "reviewbot");
let bob: SignedIn;
const run = marker("rules");

async function submit(n: number): Promise<string> {
  return bot.submit(envelope("ask", bot.agentId, { title: `Rule check ${run} #${n}` }));
}

test.beforeAll(async ({ browser }) => {
  bob = await signedInContext(browser, LOGINS.starksBob);
});
test.afterAll(async () => {
  await bob?.context.close();
});

test("answer and remember; the next ask like it is answered by the rule, and says so", async () => {
  const { page } = bob;
  const first = await submit(1);
  await page.goto(`/inbox/${first}`);
  await page.getByTestId("remember-value").selectOption("approve");
  await page.getByTestId("remember-pattern").fill(`Rule check ${run} #*`);
  await expect(page.getByTestId("remember-scope")).toHaveText(
    `Will answer: confirm asks from agent reviewbot, with options approve / deny, titled like "Rule check ${run} #*": answer approve`,
  );
  await page.getByTestId("remember-submit").click();
  await expect(page.getByTestId("outcome")).toContainText("Answered by human:bob");

  const second = await submit(2);
  const terminal = await pullTerminal(bot, second);
  expect(terminal.response.response.actor).toMatch(/^system:rule\/rule_[0-9a-z]+$/);
  expect(terminal.response.response.comment).toBe("answered by a standing rule set by human:bob");
  await page.goto(`/inbox/${second}`);
  await expect(page.getByTestId("outcome-rule")).toContainText("A standing rule set by human:bob answered this");
  await expect(page.getByTestId("outcome-rule")).toContainText("1 answer so far");
});

test("Settings → Standing rules lists it; revoked, the next ask waits for a person", async () => {
  const { page } = bob;
  await page.goto("/settings/rules");
  const row = page.getByTestId("rules-stark").getByTestId("rule-row");
  await expect(row).toHaveAttribute("data-state", "active");
  await expect(row.getByTestId("rule-hits")).toHaveText("1");
  const id = (await row.getAttribute("data-rule")) as string;
  await page.getByTestId(`revoke-rule-${id}-submit`).click();
  await expect(page.getByTestId("rules-stark").getByTestId("rule-row")).toHaveAttribute("data-state", "revoked");
  const third = await submit(3);
  const body = await bot.pull(third);
  expect(body.status).toBe("open");
});
