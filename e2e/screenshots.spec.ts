/**
 * The docs screenshots (screenshot-inbox.png, screenshot-item.png, screenshot-agent.png), taken from
 * this run in an account of their own (demo, owner dana) seeded with the spec's example messages —
 * under test-results/screenshots/, or into docs/ with `npm run docs:screenshots` (./support/screenshots.ts).
 */
import { api, expect, signedInContext, test } from "./support/fixtures";
import { screenshotPath } from "./support/screenshots";
import { e2eState, LOGINS } from "./support/state";

const hubUrl = () => e2eState().hubUrl;

const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");
let n = 0;
const agent = (project = "web-app") => ({
  id: "deploybot/dev-team",
  run_id: `run_demo_${++n}`,
  runtime: "github-actions",
  project,
});

test("screenshots of the inbox and of an item", async ({ browser }) => {
  const a = api("demo");
  const base = { ma2h_version: "0.5", created_at: now() };
  await a.submit({
    ...base,
    type: "notify",
    agent: { ...agent(), runtime: "cloud" },
    title: "Daily deploy digest — web-app (last 24h)",
    tags: ["digest", "release"],
    body: "## Shipped\n- **#142** Extracted a shared cache helper.\n- **#138** Modeled the checkout result as a discriminated union.\n\n## Numbers\n- 6 PRs merged · 0 reverts",
    context: [{ kind: "data", data: { prs_merged: 6, reverts: 0, merged: ["#142", "#138", "#131"] } }],
  });
  await a.submit({
    ...base,
    type: "ask",
    agent: { ...agent(), runtime: "cli" },
    title: "What release note should accompany the #142 deploy?",
    tags: ["input", "release"],
    idempotency_key: `demo-note-${Date.now()}`,
    request: {
      mode: "input",
      schema: {
        type: "object",
        properties: { release_note: { type: "string" }, notify_users: { type: "boolean" } },
        required: ["release_note"],
      },
    },
  });
  await a.submit({
    ...base,
    type: "task",
    agent: agent(),
    title: "Rotate API_SIGNING_KEY in prod before the #150 rollout",
    priority: "high",
    tags: ["action-required", "secrets"],
    idempotency_key: `demo-rotate-${Date.now()}`,
    body: "The #150 rollout needs a fresh `API_SIGNING_KEY` (≥32 chars). I can't set secrets — rotate it and reply done.",
    action: {
      instructions:
        "Generate a ≥32-char random key, store it as API_SIGNING_KEY in the prod secret manager, and roll it out.",
      checklist: [
        { text: "Generate ≥32-char key", done: false },
        { text: "Store as API_SIGNING_KEY in prod secrets", done: false },
        { text: "Confirm rollout to all API pods", done: false },
      ],
      verification: "A signed test request returns 200 with a valid signature.",
    },
  });
  await a.submit({
    ...base,
    type: "ask",
    agent: agent(),
    title: "Merge PR #142 now that CI is green?",
    tags: ["confirm", "merge"],
    idempotency_key: `demo-merge-${Date.now()}`,
    body: "All checks pass and the code review is resolved. Approve to merge, deny to hold.",
    request: { mode: "confirm" },
  });
  const ship = await a.submit({
    ...base,
    type: "ask",
    agent: { ...agent(), labels: { pipeline: "release" } },
    ma2h_version: "0.6", // the v0.6 free-form answer shows beside the options (§5.2 allow_edit)
    title: "CI is green on the candidate build — ship to production, or hold?",
    priority: "urgent",
    tags: ["decision", "release", "web-app"],
    idempotency_key: `demo-ship-${Date.now()}`,
    expires_at: inHours(20),
    body: "The candidate build for **#142** passed all checks. Ship it to production now, hold for a human review, or abort?\n\n- 1,204 tests passed\n- bundle size −3.1 %\n\nSee the [build log](https://ci.example.com/builds/142).",
    context: [
      { kind: "text", text: "Canary error rate 0.02 % over the last hour." },
      { kind: "data", data: { build: 142, commit: "9f2c1ab", checks: { unit: "pass", e2e: "pass", lint: "pass" } } },
      {
        kind: "file",
        file: {
          uri: "https://ci.example.com/artifacts/142/report.html",
          name: "test-report.html",
          mime_type: "text/html",
        },
      },
    ],
    request: {
      mode: "select",
      options: [
        {
          value: "ship",
          label: "Ship to prod now",
          description: "Promote the candidate build to production immediately.",
        },
        { value: "hold", label: "Hold for review", description: "Wait for a human to review before deploying." },
        { value: "abort", label: "Abort the release", description: "Revert and close." },
      ],
      permissions: { allow_edit: true, allow_respond: true, allow_ignore: false },
      default_on_expire: "hold",
    },
  });

  const { context, page } = await signedInContext(browser, LOGINS.dana);
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/inbox");
    await expect(page.locator(`[data-testid="inbox-row"][data-id="${ship}"]`)).toBeVisible();
    await page.waitForTimeout(300);
    await page.screenshot({ path: screenshotPath("screenshot-inbox.png") });

    await page.goto(`/inbox/${ship}`);
    await expect(page.getByTestId("item-title")).toBeVisible();
    await expect(page.getByTestId("item-countdown")).toBeVisible();
    await expect(page.getByTestId("item-context")).toBeVisible();
    await page.waitForTimeout(300);
    await page.screenshot({ path: screenshotPath("screenshot-item.png"), fullPage: true });

    // The agent page: two directives sent from the composer, one drained and acknowledged with a note.
    await page.goto("/inbox/agents/demo/deploybot/dev-team");
    for (const [title, priority] of [
      ["Pause deploys to prod until the incident review is done", "urgent"],
      ["Use the eu-west canary for the #150 rollout", "normal"],
    ] as const) {
      await page.getByTestId("directive-title").fill(title);
      await page.getByTestId("directive-priority").selectOption(priority);
      await page.getByTestId("directive-send").click();
      await expect(page.getByTestId("directive-row").filter({ hasText: title })).toBeVisible();
    }
    const drained = await fetch(`${hubUrl()}/v1/inbox?max=1`, { headers: { authorization: `Bearer ${a.key}` } });
    const [first] = ((await drained.json()) as { messages: { directive: { id: string } }[] }).messages;
    await fetch(`${hubUrl()}/v1/inbox/ack`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        ids: [first!.directive.id],
        note: "Paused. Deploys stay frozen until you send **resume**.",
      }),
    });
    await expect(page.getByTestId("directive-status").getByText("acknowledged")).toBeVisible();
    await page.waitForTimeout(300);
    await page.screenshot({ path: screenshotPath("screenshot-agent.png"), fullPage: true });
  } finally {
    await context.close();
  }
});
