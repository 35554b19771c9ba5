/**
 * Resolving in the browser: one ask of each mode and a task with its checklist,
 * each answered by alice on the item page; the agent's pull then carries `actor: human:alice` and
 * the value or checklist. (The v0.6 free-form answer and the radio group's keys: free-form.spec.ts.) Two browsers answering one ask: one wins, the other is told.
 */
import type { Page } from "@playwright/test";
import { api, envelope, expect, marker, pullTerminal, signedInContext, test, type SignedIn } from "./support/fixtures";
import { hubLogs, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

let alice: SignedIn;

test.beforeAll(async ({ alice: signedIn }) => {
  alice = signedIn; // the worker's signed-in alice, shared by this file's serial tests
});

async function open(page: Page, id: string, title: string) {
  const res = await page.goto(`/inbox/${id}`);
  expect(res?.status()).toBe(200);
  await expect(page.getByTestId("item-title")).toHaveText(title);
}

test("select: an option and a comment", async () => {
  const a = api();
  const title = `Ship or hold ${marker()}`;
  const id = await a.submit(
    envelope("ask", a.agentId, {
      title,
      priority: "high",
      body: "The candidate build passed all checks. **Ship** it, or hold for review?",
      request: {
        mode: "select",
        options: [
          { value: "ship", label: "Ship to prod now", description: "Promote the candidate build immediately." },
          { value: "hold", label: "Hold for review", description: "Wait for a human review first." },
          { value: "abort", label: "Abort the release", description: "Revert and close." },
        ],
        permissions: { allow_edit: false, allow_respond: true, allow_ignore: true },
      },
    }),
  );
  const { page } = alice;
  await open(page, id, title);
  await expect(page.getByTestId("option-hold")).toContainText("Hold for review");
  await expect(page.getByText("Wait for a human review first.")).toBeVisible();
  await page.getByTestId("option-hold").click();
  await page.getByTestId("comment").fill("Hold — a human should look first.");
  await page.getByTestId("submit-answer").click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");

  const pulled = await pullTerminal(a, id);
  expect(pulled.status).toBe("answered");
  expect(pulled.response.resolution).toBe("answered");
  expect(pulled.response.response).toMatchObject({
    actor: "human:alice",
    value: "hold",
    comment: "Hold — a human should look first.",
  });
});

test("confirm: approve", async () => {
  const a = api();
  const title = `Merge PR now? ${marker()}`;
  const id = await a.submit(envelope("ask", a.agentId, { title, body: "CI is green.", request: { mode: "confirm" } }));
  const { page } = alice;
  await open(page, id, title);
  await page.getByTestId("option-approve").click();
  // A confirm may submit on the choice itself; otherwise the submit button does.
  const submit = page.getByTestId("submit-answer");
  if (await submit.isVisible().catch(() => false)) await submit.click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");

  const pulled = await pullTerminal(a, id);
  expect(pulled.status).toBe("answered");
  expect(pulled.response.response).toMatchObject({ actor: "human:alice", value: "approve" });
});

test("input: a generated form with string, boolean, integer, enum and a sensitive field", async () => {
  const a = api();
  const title = `Release note and key ${marker()}`;
  const secret = `sk_live_${marker("secret").replace(/-/g, "")}`;
  const id = await a.submit(
    envelope("ask", a.agentId, {
      title,
      sensitive: true,
      request: {
        mode: "input",
        schema: {
          type: "object",
          properties: {
            release_note: { type: "string" },
            notify_users: { type: "boolean" },
            retries: { type: "integer" },
            environment: { type: "string", enum: ["staging", "prod"] },
            payment_api_key: { type: "string", "x-ma2h-sensitive": true },
          },
          required: ["release_note", "payment_api_key"],
        },
        // §5.2 (v0.6): allow_edit is meaningless for input — the fields are always editable.
        permissions: { allow_edit: false, allow_respond: true, allow_ignore: true },
      },
    }),
  );
  const { page } = alice;
  await open(page, id, title);
  await page.getByTestId("field-release_note").fill("Faster checkout.");
  const notify = page.getByTestId("field-notify_users");
  await notify.check();
  await page.getByTestId("field-retries").fill("3");
  await page.getByTestId("field-environment").selectOption("prod");
  const key = page.getByTestId("field-payment_api_key");
  // Masked while typed.
  await expect(key).toHaveAttribute("type", "password");
  await key.fill(secret);
  await page.getByTestId("submit-answer").click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");
  // Nor shown back in the outcome.
  await expect(page.getByTestId("outcome")).not.toContainText(secret);
  await expect(page.locator("body")).not.toContainText(secret);

  const pulled = await pullTerminal(a, id);
  expect(pulled.status).toBe("answered");
  expect(pulled.response.response.actor).toBe("human:alice");
  expect(pulled.response.response.value).toMatchObject({
    release_note: "Faster checkout.",
    notify_users: true,
    retries: 3,
    environment: "prod",
  });
  expect(JSON.stringify(pulled.response.response.value.payment_api_key)).toContain(secret);
  // Kept out of the logs (§9.6).
  expect(hubLogs()).not.toContain(secret);
});

test("task: tick the checklist and complete with a comment", async () => {
  const a = api();
  const title = `Rotate API_SIGNING_KEY ${marker()}`;
  const id = await a.submit(
    envelope("task", a.agentId, {
      title,
      priority: "high",
      body: "The rollout needs a fresh `API_SIGNING_KEY`.",
      action: {
        instructions: "Generate a ≥32-char random key and store it as API_SIGNING_KEY in prod.",
        checklist: [
          { text: "Generate ≥32-char key", done: false },
          { text: "Store as API_SIGNING_KEY in prod secrets", done: false },
          { text: "Confirm rollout to all API pods", done: false },
        ],
        verification: "A signed test request returns 200.",
      },
    }),
  );
  const { page } = alice;
  await open(page, id, title);
  await expect(page.getByText("A signed test request returns 200.")).toBeVisible();
  await page.getByTestId("check-0").check();
  await page.getByTestId("check-2").check();
  await page.getByTestId("comment").fill("Rotated; pods restarted.");
  await page.getByTestId("complete").click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");

  const pulled = await pullTerminal(a, id);
  expect(pulled.status).toBe("completed");
  expect(pulled.response.resolution).toBe("completed");
  expect(pulled.response.response).toMatchObject({
    actor: "human:alice",
    comment: "Rotated; pods restarted.",
    checklist: [
      { text: "Generate ≥32-char key", done: true },
      { text: "Store as API_SIGNING_KEY in prod secrets", done: false },
      { text: "Confirm rollout to all API pods", done: true },
    ],
  });
});

test("the form is prefilled from default_on_expire; another listed option is not edited, nor is the prefill", async () => {
  const a = api();
  const request = {
    mode: "select",
    options: [
      { value: "ship", label: "Ship" },
      { value: "hold", label: "Hold" },
    ],
    // allow_accept (removed in v0.6) is read by nothing: `false` here still leaves "Accept suggestion".
    permissions: { allow_accept: false, allow_respond: true, allow_ignore: true },
    default_on_expire: "hold",
  };
  const expires_at = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");
  const { page } = alice;

  const changedTitle = `Prefill changed ${marker()}`;
  const changed = await a.submit(envelope("ask", a.agentId, { title: changedTitle, expires_at, request }));
  await open(page, changed, changedTitle);
  await expect(page.getByTestId("item-countdown")).toBeVisible();
  await expect(page.getByTestId("option-hold")).toHaveAttribute("aria-checked", "true");
  await expect(page.getByTestId("accept-default")).toBeVisible();
  await page.getByTestId("option-ship").click();
  await page.getByTestId("submit-answer").click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");
  // §6 (v0.6): `edited` is set membership — a listed option is never edited, whatever the prefill.
  expect((await pullTerminal(a, changed)).response.response).toMatchObject({
    actor: "human:alice",
    value: "ship",
    edited: false,
  });

  const keptTitle = `Prefill kept ${marker()}`;
  const kept = await a.submit(envelope("ask", a.agentId, { title: keptTitle, expires_at, request }));
  await open(page, kept, keptTitle);
  await page.getByTestId("submit-answer").click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");
  expect((await pullTerminal(a, kept)).response.response).toMatchObject({
    actor: "human:alice",
    value: "hold",
    edited: false,
  });
});

test("decline an ask and dismiss a task", async () => {
  const a = api();
  const askTitle = `Decline me ${marker()}`;
  const askId = await a.submit(envelope("ask", a.agentId, { title: askTitle }));
  const taskTitle = `Dismiss me ${marker()}`;
  const taskId = await a.submit(envelope("task", a.agentId, { title: taskTitle }));
  const { page } = alice;

  await open(page, askId, askTitle);
  await page.getByTestId("comment").fill("Not now.");
  await page.getByTestId("decline").click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");
  const declined = await pullTerminal(a, askId);
  expect(declined.status).toBe("declined");
  expect(declined.response.response).toMatchObject({ actor: "human:alice", comment: "Not now." });

  await open(page, taskId, taskTitle);
  await page.getByTestId("comment").fill("Done elsewhere.");
  await page.getByTestId("dismiss").click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");
  const dismissed = await pullTerminal(a, taskId);
  expect(dismissed.status).toBe("dismissed");
  expect(dismissed.response.response).toMatchObject({ actor: "human:alice", comment: "Done elsewhere." });
});

test("two browsers answer the same ask: one wins, the other sees the conflict", async ({ browser }) => {
  const a = api();
  const title = `Race ${marker()}`;
  const id = await a.submit(
    envelope("ask", a.agentId, {
      title,
      request: {
        mode: "select",
        options: [
          { value: "ship", label: "Ship" },
          { value: "hold", label: "Hold" },
        ],
      },
    }),
  );
  const bob = await signedInContext(browser, LOGINS.bob);
  try {
    const pa = alice.page;
    const pb = bob.page;
    await open(pa, id, title);
    await open(pb, id, title);
    await pa.getByTestId("option-ship").click();
    await pb.getByTestId("option-hold").click();
    await Promise.all([pa.getByTestId("submit-answer").click(), pb.getByTestId("submit-answer").click()]);

    const pulled = await pullTerminal(a, id);
    expect(pulled.status).toBe("answered");
    const winner = pulled.response.response.actor as string;
    expect(["human:alice", "human:bob"]).toContain(winner);
    const [winPage, losePage] = winner === "human:alice" ? [pa, pb] : [pb, pa];
    expect(pulled.response.response.value).toBe(winner === "human:alice" ? "ship" : "hold");

    await expect(winPage.getByTestId("outcome")).toContainText(winner);
    await expect(winPage.getByTestId("conflict")).toHaveCount(0);
    // The loser is told who answered, with the real outcome.
    await expect(losePage.getByTestId("conflict")).toBeVisible();
    await expect(losePage.getByTestId("conflict")).toContainText(winner);
  } finally {
    await bob.context.close();
  }
});
