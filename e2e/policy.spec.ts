/**
 * The approval policy's admin page (docs/admin.md "Policy"), in the cyberdyne account: olga (its
 * owner) applies a file with a typo — refused with its line, nothing changed —, checks one naming a
 * person who is not in the account, then checks and applies a good one (its diff, revision 1); the
 * page lists the rules in words. The tester shows the matching rules, who may answer and who is
 * left out and why, for a pasted envelope, for a draft, and for asks the agents submitted over
 * `/v1` before and after the apply (with the routing recorded at their submit). adam (an admin)
 * sees the page and the file without the editor, runs the tester, and his replay of olga's apply
 * is refused. The audit log has the policy.applied row; another account's policy page is 404. Two
 * sign-ins in all.
 */
import type { Page, Request } from "@playwright/test";
import { api, envelope, expect, signedInContext, type SignedIn, test } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const BASE = "/admin/cyberdyne/policy";
const bot = api("cyberdyne", "deploybot/prod");
let olga: SignedIn;
let adam: SignedIn;
let beforeId = "";
let afterId = "";
let applyPost: { url: string; headers: Record<string, string>; body: Buffer } | null = null;

const GOOD = `version: 1
groups:
  sre: [human:mia, human:sam]
rules:
  - name: prod-deploys
    description: Production deploys are answered by the SRE group and the owner
    match: { agent: "deploybot/*", mode: [confirm, select] }
    assign: [group:sre, human:olga]
    email_answers: false
  - name: prod-tag
    match: { tags_any: [prod] }
    assign: [group:sre]
`;

/** The 1-based line of the first line of `text` that contains `needle`. */
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

async function revision(page: Page): Promise<string | null> {
  return page.getByTestId("policy-revision").getAttribute("data-revision");
}

async function excludedRows(page: Page): Promise<string[]> {
  return page
    .locator('[data-testid="test-excluded-row"]')
    .evaluateAll((rows) =>
      rows.map((r) => `${r.getAttribute("data-handle")}: ${r.querySelectorAll("td")[1]?.textContent}`),
    );
}

test.beforeAll(async ({ browser }) => {
  // An ask submitted before any policy: recorded under the default policy.
  beforeId = await bot.submit(envelope("ask", bot.agentId, { title: "Deploy before the policy" }));
  olga = await signedInContext(browser, LOGINS.olga);
  adam = await signedInContext(browser, LOGINS.adam);
});

test.afterAll(async () => {
  await olga?.context.close();
  await adam?.context.close();
});

test("an owner's file with a typo is refused with its line; a good one is checked, then applied as revision 1", async () => {
  const { page } = olga;
  await page.goto("/admin/cyberdyne/agents");
  await page.getByTestId("tab-policy").click();
  await page.waitForURL(/\/admin\/cyberdyne\/policy$/);
  await expect(page.getByTestId("policy-default")).toContainText("every answering member");
  expect(await revision(page)).toBe("0");
  await expect(page.getByTestId("policy-owner-only")).toHaveCount(0);
  // The editor starts from the export of the (empty) policy.
  await expect(page.getByTestId("policy-yaml")).toHaveValue(/revision 0[\s\S]*version: 1\n/);

  const typo = GOOD.replace("    assign: [group:sre]\n", "    asign: [group:sre]\n");
  await page.getByTestId("policy-yaml").fill(typo);
  await page.getByTestId("policy-apply").click();
  await expect(page.getByTestId("policy-edit-error")).toContainText(
    "Not applied: the file has problems; nothing changed",
  );
  await expect(page.getByTestId("policy-problems")).toContainText(
    `policy:${lineOf(typo, "asign")}:5: unknown key "asign"`,
  );
  // The refused file changed nothing; the editor keeps what was typed.
  await expect(page.getByTestId("policy-yaml")).toHaveValue(typo);
  await page.reload();
  expect(await revision(page)).toBe("0");
  await expect(page.getByTestId("policy-default")).toBeVisible();

  // The apply's own check: a person who is not in the account, on the line that names them.
  const stranger = GOOD.replace("[group:sre, human:olga]", "[group:sre, human:nobody]");
  await page.getByTestId("policy-yaml").fill(stranger);
  await page.getByTestId("policy-check").click();
  await expect(page.getByTestId("policy-problems")).toHaveText(
    `policy:${lineOf(stranger, "human:nobody")}:25: human:nobody is not a member of this account`,
  );

  // Check: the diff, nothing changed.
  await page.getByTestId("policy-yaml").fill(GOOD);
  await page.getByTestId("policy-check").click();
  const ok = page.getByTestId("policy-edit-ok");
  await expect(ok).toHaveAttribute("data-dry-run", "true");
  await expect(page.getByTestId("policy-edit-message")).toContainText("Nothing was changed.");
  await expect(ok.getByTestId("policy-diff")).toContainText("Rules addedprod-deploys, prod-tag");
  await expect(ok.getByTestId("policy-diff")).toContainText("Groups createdgroup:sre");
  expect(await revision(page)).toBe("0");

  // Apply, recording the post for the admin's replay below.
  const posts: Request[] = [];
  const onRequest = (r: Request) => {
    if (r.method() === "POST" && r.url().startsWith(e2eState().hubUrl)) posts.push(r);
  };
  page.on("request", onRequest);
  await page.getByTestId("policy-apply").click();
  await expect(page.getByTestId("policy-edit-message")).toHaveText("Applied: revision 1.");
  page.off("request", onRequest);
  await expect(ok).toHaveAttribute("data-dry-run", "false");
  await expect(ok.getByTestId("policy-diff")).toContainText(
    "Put in a grouphuman:mia → group:sre, human:sam → group:sre",
  );
  const post = posts.at(-1) as Request;
  const headers = { ...(await post.allHeaders()) };
  for (const h of ["cookie", "content-length", "host", "connection"]) delete headers[h];
  applyPost = { url: post.url(), headers, body: post.postDataBuffer() ?? Buffer.alloc(0) };

  // The page now shows revision 1 and the rules in words.
  await expect(page.getByTestId("policy-revision")).toHaveAttribute("data-revision", "1");
  await expect(page.getByTestId("policy-revision")).toContainText("applied by human:olga");
  const deploys = page.locator('[data-testid="policy-rule"][data-rule="prod-deploys"]');
  await expect(deploys.getByTestId("rule-description")).toHaveText(
    "Production deploys are answered by the SRE group and the owner",
  );
  await expect(deploys.locator('[data-key="agent"]')).toContainText("the agent's id matches deploybot/*");
  await expect(deploys.locator('[data-key="agent"]')).toContainText("attested by the Hub");
  await expect(deploys.locator('[data-key="mode"]')).toContainText("asserted by the agent");
  await expect(deploys.getByTestId("rule-assign")).toHaveText("group:sre, human:olga");
  await expect(deploys.getByTestId("rule-email-answers")).toContainText(
    "no — notification mail links to the item page",
  );
  const tag = page.locator('[data-testid="policy-rule"][data-rule="prod-tag"]');
  await expect(tag.locator('[data-key="tags_any"]')).toContainText("it is tagged prod");
  await expect(tag.locator('[data-key="tags_any"]')).toContainText("asserted by the agent");
  await expect(page.getByTestId("policy-default")).toHaveCount(0);
});

test("the tester: a pasted ask, a draft, and stored asks with the routing recorded at their submit", async () => {
  const { page } = olga;
  afterId = await bot.submit(envelope("ask", bot.agentId, { title: "Deploy after the policy" }));
  await page.goto(BASE);

  // Not JSON: a clear error.
  await page.getByTestId("test-json").fill("{ not json");
  await page.getByTestId("policy-test-submit").click();
  await expect(page.getByTestId("policy-test-error")).toContainText("the pasted message is not JSON");

  // A pasted envelope from the deploy bot, tagged prod: both rules match; only the sre group answers.
  await page.getByTestId("test-json").fill(JSON.stringify(envelope("ask", bot.agentId, { tags: ["prod"] }), null, 2));
  await page.getByTestId("policy-test-submit").click();
  const result = page.getByTestId("policy-test-result");
  await expect(page.getByTestId("policy-test-message")).toHaveText("2 rules match.");
  await expect(result.getByTestId("test-matched-rule")).toHaveCount(2);
  await expect(page.getByTestId("test-eligible")).toHaveText("human:mia, human:sam");
  await expect(page.getByTestId("test-email-answers")).toContainText("no — mail links to the item page");
  expect(await excludedRows(page)).toEqual([
    "adam: not assigned by rule prod-deploys; not assigned by rule prod-tag",
    "olga: not assigned by rule prod-tag",
    "val: the viewer role may read but not answer; not assigned by rule prod-deploys; not assigned by rule prod-tag",
  ]);
  await expect(page.getByTestId("test-recorded")).toHaveCount(0);
  await expect(page.getByTestId("test-refused")).toHaveCount(0);
  await expect(page.getByTestId("test-agent-unknown")).toHaveCount(0);

  // One that lists only adam, whom the rules do not ask: the Hub would refuse it.
  const onlyAdam = envelope("ask", bot.agentId, { request: { mode: "confirm", allowed_resolvers: ["human:adam"] } });
  await page.getByTestId("test-json").fill(JSON.stringify(onlyAdam));
  await page.getByTestId("policy-test-submit").click();
  await expect(page.getByTestId("test-refused")).toContainText("the Hub would refuse this submit");
  await expect(page.getByTestId("test-eligible")).toHaveText("nobody");
  await expect(page.locator('[data-testid="test-excluded-row"][data-handle="mia"]')).toContainText(
    "not in the ask's allowed_resolvers",
  );

  // The tagged ask against a draft without the tag rule, not applied.
  await page.getByTestId("test-json").fill(JSON.stringify(envelope("ask", bot.agentId, { tags: ["prod"] })));
  await page.getByTestId("policy-yaml").fill(GOOD.slice(0, GOOD.indexOf("  - name: prod-tag")));
  await page.getByTestId("test-against-draft").check();
  await page.getByTestId("policy-test-submit").click();
  await expect(result).toHaveAttribute("data-against", "draft");
  await expect(page.getByTestId("policy-test-message")).toHaveText("1 rule matches.");
  await expect(page.getByTestId("test-eligible")).toHaveText("human:mia, human:olga, human:sam");
  await expect(page.getByTestId("test-draft-groups")).toContainText("group:sre");
  await page.reload();
  expect(await revision(page)).toBe("1");

  // Stored: the ask submitted before the policy was recorded under the default, and differs from now.
  await page.getByTestId("test-source-stored").check();
  await page.getByTestId("test-ask").selectOption(beforeId);
  await page.getByTestId("policy-test-submit").click();
  await expect(page.getByTestId("test-ask-summary")).toContainText("Deploy before the policy");
  await expect(page.getByTestId("test-eligible")).toHaveText("human:mia, human:olga, human:sam");
  await expect(page.getByTestId("test-recorded-routing")).toHaveText("The default policy (no rule matched then).");
  await expect(page.getByTestId("test-recorded")).toHaveAttribute("data-same", "false");

  // The one submitted after it: recorded as the tester computes it now.
  await page.getByTestId("test-ask").selectOption(afterId);
  await page.getByTestId("policy-test-submit").click();
  await expect(page.getByTestId("test-ask-summary")).toContainText("Deploy after the policy");
  await expect(page.getByTestId("test-recorded-routing")).toHaveText(
    "Rules prod-deploys; may answer: human:mia, human:olga, human:sam; answers from mail: no.",
  );
  await expect(page.getByTestId("test-recorded")).toHaveAttribute("data-same", "true");
});

test("an admin reads the policy and its file without the editor, runs the tester; his replayed apply is refused", async () => {
  const { page, context } = adam;
  await page.goto(BASE);
  await expect(page.getByTestId("tab-policy")).toBeVisible();
  await expect(page.getByTestId("policy-revision")).toHaveAttribute("data-revision", "1");
  await expect(page.locator('[data-testid="policy-rule"]')).toHaveCount(2);
  await expect(page.getByTestId("policy-owner-only")).toBeVisible();
  await expect(page.getByTestId("policy-export")).toContainText("name: prod-deploys");
  await expect(page.getByTestId("policy-editor")).toHaveCount(0);
  await expect(page.getByTestId("policy-apply")).toHaveCount(0);
  await expect(page.getByTestId("test-against-draft")).toHaveCount(0);

  await page.getByTestId("test-source-stored").check();
  await page.getByTestId("test-ask").selectOption(afterId);
  await page.getByTestId("policy-test-submit").click();
  await expect(page.getByTestId("policy-test-message")).toHaveText("1 rule matches.");
  await expect(page.locator('[data-testid="test-matched-rule"][data-rule="prod-deploys"]')).toBeVisible();
  await expect(page.getByTestId("test-eligible")).toHaveText("human:mia, human:olga, human:sam");
  expect(await excludedRows(page)).toEqual([
    "adam: not assigned by rule prod-deploys",
    "val: the viewer role may read but not answer; not assigned by rule prod-deploys",
  ]);

  // olga's apply, replayed with adam's session (with one rule dropped): the service refuses an admin.
  expect(applyPost).not.toBeNull();
  const post = applyPost as NonNullable<typeof applyPost>;
  const forged = post.body.toString("latin1").replace("prod-tag", "prod-forged");
  const res = await context.request.fetch(post.url, {
    method: "POST",
    headers: { ...post.headers, origin: e2eState().hubUrl },
    data: Buffer.from(forged, "latin1"),
    maxRedirects: 0,
  });
  expect(await res.text()).toContain("only an owner can apply the approval policy");
  await page.reload();
  await expect(page.getByTestId("policy-revision")).toHaveAttribute("data-revision", "1");
  await expect(page.locator('[data-testid="policy-rule"][data-rule="prod-forged"]')).toHaveCount(0);
});

test("the audit log shows the apply as the owner's; another account's policy page is 404", async () => {
  const { page } = olga;
  await page.goto(`/admin/cyberdyne/audit?kind=${encodeURIComponent("policy.applied")}`);
  const rows = await page
    .locator('[data-testid="audit-row"]')
    .evaluateAll((trs) => trs.map((r) => `${r.getAttribute("data-event")} ${r.getAttribute("data-actor")}`));
  expect(rows).toEqual(["policy.applied human:olga"]);
  // Another account's policy page is 404 to her, as an account that does not exist.
  expect((await page.goto("/admin/acme/policy"))?.status()).toBe(404);
  expect((await page.goto("/admin/no-such-account/policy"))?.status()).toBe(404);
});
