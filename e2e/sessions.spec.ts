/**
 * Agent sessions and the operator's hard stop in the browser (§16, §16.4.1): alice (owner) watches
 * a session the agent registers appear on its page, stops the agent after confirming in the page's
 * dialog — the session shows closed by an operator and the agent's next registration is `403
 * session_closed_by_operator` — then resumes it, and it registers again (`201`); the audit log names
 * her for both. An item submitted from a session shows it. A member and a viewer see the state but
 * no buttons. The account settings "agents may list each other's sessions" and "inter-agent messages"
 * (§8.0) are an owner's switches; who may message the agent (§13.5) is set on its page by an owner or
 * admin and read by a viewer.
 * The agent is `session-bot`, this spec's own (e2e/global-setup.ts).
 */
import { api, envelope, expect, signedInContext, test, type SignedIn } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const AGENT = "session-bot";
const PAGE = `/inbox/agents/acme/${AGENT}`;
let alice: SignedIn;

test.beforeAll(async ({ alice: signedIn }) => {
  alice = signedIn; // the worker's signed-in alice, shared by this file's serial tests
});

/** The agent's side: `POST /v1/sessions` with its own API key. */
async function register(body: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  const { hubUrl, keys } = e2eState();
  const res = await fetch(`${hubUrl}/v1/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${keys.acme![AGENT]}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

test("alice stops the agent from its page after confirming; its registration is refused until she resumes it", async () => {
  const { page } = alice;
  expect((await page.goto(PAGE))?.status()).toBe(200);
  await expect(page.getByTestId("agent-not-stopped")).toBeVisible();

  // Live: a session the agent registers now shows up without a reload.
  const first = await register({ label: "nightly build", run_id: "run_e2e_sessions" });
  expect(first.status).toBe(201);
  const id = first.body.session.id as string;
  const row = page.locator(`[data-testid="session-row"][data-session="${id}"]`);
  await expect(row.getByTestId("session-state")).toHaveText("active", { timeout: 15_000 });
  await expect(row).toContainText("nightly build");
  await expect(row).toContainText("run run_e2e_sessions");

  // Stop asks first, in a modal dialog on the page; Escape cancels and nothing changes.
  const dialog = page.getByRole("dialog", { name: `Stop ${AGENT}?` });
  await page.getByTestId("stop-agent").click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("stop-agent-cancel")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await page.getByTestId("stop-agent").click();
  await dialog.getByTestId("stop-agent-cancel").click();
  await expect(dialog).toBeHidden();
  expect((await register()).status).toBe(201); // not stopped: it may still register

  await page.getByTestId("stop-agent").click();
  await dialog.getByTestId("stop-agent-confirm").click();
  await expect(page.getByTestId("agent-stop-ok")).toContainText(`Stopped ${AGENT}`);
  await expect(page.getByTestId("agent-stopped")).toContainText("Stopped by human:alice since");
  await expect(row.getByTestId("session-state")).toHaveText("closed");
  await expect(row.getByTestId("session-by-operator")).toBeVisible();
  await expect(page.locator('[data-testid="session-row"][data-state="active"]')).toHaveCount(0);
  await expect(page.getByTestId("stop-agent")).toHaveCount(0);

  const refused = await register();
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe("session_closed_by_operator");

  await page.getByTestId("resume-agent-submit").click();
  await expect(page.getByTestId("agent-stop-ok")).toContainText(`Resumed ${AGENT}`);
  await expect(page.getByTestId("agent-not-stopped")).toBeVisible();
  const again = await register({ label: "after resume" });
  expect(again.status).toBe(201);
  await expect(
    page.locator(`[data-testid="session-row"][data-session="${again.body.session.id}"]`).getByTestId("session-state"),
  ).toHaveText("active", { timeout: 15_000 });

  // Both are in the audit log, attributed to alice.
  await page.goto(`/admin/acme/audit?actor=${encodeURIComponent("human:alice")}`);
  const rows = page.locator('[data-testid="audit-row"]').filter({ hasText: AGENT });
  await expect(rows.and(page.locator('[data-event="agent.stopped"]'))).toHaveCount(1);
  await expect(rows.and(page.locator('[data-event="agent.resumed"]'))).toHaveCount(1);
  await page.goto(`/admin/acme/audit?kind=${encodeURIComponent("agent.*")}`);
  const actors = await page
    .locator(
      '[data-testid="audit-row"][data-event="agent.stopped"], [data-testid="audit-row"][data-event="agent.resumed"]',
    )
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-actor")));
  expect(actors.length).toBeGreaterThanOrEqual(2);
  expect(new Set(actors)).toEqual(new Set(["human:alice"]));
});

test("Stop says the keys still work outside sessions; Stop and revoke keys cuts the agent off in one audited step", async () => {
  const { page } = alice;
  const AGENT2 = "revoke-bot";
  const { hubUrl, keys } = e2eState();
  const key = keys.acme![AGENT2] as string;
  const submit = () =>
    fetch(`${hubUrl}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(envelope("notify", AGENT2)),
    });
  const session = await fetch(`${hubUrl}/v1/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(session.status).toBe(201);
  expect((await submit()).status).toBe(202);

  expect((await page.goto(`/inbox/agents/acme/${AGENT2}`))?.status()).toBe(200);
  await page.getByTestId("stop-agent").click();
  const dialog = page.getByRole("dialog", { name: `Stop ${AGENT2}?` });
  await expect(dialog.getByTestId("stop-agent-keys-note")).toContainText(
    "Stop does not revoke its API keys: outside a session the agent can still submit messages",
  );
  await dialog.getByTestId("stop-agent-revoke-keys").click();
  await expect(page.getByTestId("agent-stop-ok")).toContainText(`Stopped ${AGENT2} and revoked 1 API key`);
  await expect(page.getByTestId("agent-stopped")).toContainText("Stopped by human:alice since");

  // The key no longer authenticates anything: neither a submit nor a registration.
  const refused = await submit();
  expect(refused.status).toBe(401);

  await page.goto(`/admin/acme/audit?actor=${encodeURIComponent("human:alice")}`);
  const stopped = page.locator('[data-testid="audit-row"][data-event="agent.stopped"]').filter({ hasText: AGENT2 });
  await expect(stopped).toHaveCount(1);
  await expect(
    page.locator('[data-testid="audit-row"][data-event="key.revoked"]').filter({ hasText: AGENT2 }),
  ).toHaveCount(1);
});

test("an item submitted from a session shows that session, linked to the agent's page", async () => {
  const { page } = alice;
  const a = api("acme", AGENT);
  const s = await register({ label: "item run" });
  expect(s.status).toBe(201);
  const body = envelope("notify", AGENT) as Record<string, any>;
  body.agent.session = s.body.session.id;
  const res = await fetch(`${e2eState().hubUrl}/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const ack = (await res.json()) as { id?: string; error?: { message: string } };
  expect(res.status, JSON.stringify(ack)).toBe(202);
  const id = ack.id!;
  await page.goto(`/inbox/${id}`);
  const shown = page.getByTestId("item-session");
  await expect(shown).toContainText(s.body.session.id);
  await expect(shown).toContainText("item run");
  await expect(page.getByTestId("item-session-state")).toContainText("active");
  await page.getByTestId("item-session-link").click();
  await page.waitForURL((u) => u.pathname === PAGE);
  await expect(page.locator(`[data-testid="session-row"][data-session="${s.body.session.id}"]`)).toBeVisible();
});

test("a member and a viewer see the sessions and the stop state, with no Stop or Resume", async ({ browser }) => {
  for (const login of [LOGINS.bob, LOGINS.vic]) {
    const who = await signedInContext(browser, login);
    try {
      await who.page.goto(PAGE);
      await expect(who.page.getByTestId("agent-sessions")).toBeVisible();
      await expect(who.page.getByTestId("agent-not-stopped")).toBeVisible();
      await expect(who.page.getByTestId("session-row").first()).toBeVisible();
      await expect(who.page.getByTestId("stop-agent")).toHaveCount(0);
      await expect(who.page.getByTestId("resume-agent")).toHaveCount(0);
    } finally {
      await who.context.close();
    }
  }
});

test("the account setting: alice lets the agents list each other's sessions, audited; a member gets 404", async ({
  browser,
}) => {
  const { page } = alice;
  const { hubUrl, keys } = e2eState();
  const scope = async () => {
    const res = await fetch(`${hubUrl}/v1/sessions`, { headers: { authorization: `Bearer ${keys.acme![AGENT]}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { scope?: string }).scope;
  };
  expect(await scope()).toBe("own");
  await page.goto("/admin/acme/agents");
  await page.getByTestId("tab-settings").click();
  await expect(page.getByTestId("session-visibility-state")).toContainText("off");
  await page.getByTestId("toggle-session-visibility-submit").click();
  await expect(page.getByTestId("toggle-session-visibility-ok")).toContainText("may list each other's sessions");
  await expect(page.getByTestId("session-visibility-state")).toContainText("on");
  expect(await scope()).toBe("account");
  await page.getByTestId("toggle-session-visibility-submit").click();
  await expect(page.getByTestId("session-visibility-state")).toContainText("off");
  expect(await scope()).toBe("own");
  await page.goto(`/admin/acme/audit?kind=${encodeURIComponent("account.session_visibility_changed")}`);
  await expect(page.locator('[data-testid="audit-row"][data-actor="human:alice"]')).toHaveCount(2);

  const bob = await signedInContext(browser, LOGINS.bob);
  try {
    expect((await bob.page.goto("/admin/acme/settings"))?.status()).toBe(404);
  } finally {
    await bob.context.close();
  }
});

// An admin's missing switch is test/admin.test.ts's (this run's acme has no admin seat).
test("inter-agent messages: alice opts the account in and out in Settings, audited", async () => {
  const { page } = alice;
  await page.goto("/admin/acme/settings");
  await expect(page.getByTestId("inter-agent-state")).toContainText("off");
  await page.getByTestId("toggle-inter-agent-submit").click();
  await expect(page.getByTestId("toggle-inter-agent-ok")).toContainText("may message each other");
  await expect(page.getByTestId("inter-agent-state")).toContainText("on");
  await page.getByTestId("toggle-inter-agent-submit").click();
  await expect(page.getByTestId("inter-agent-state")).toContainText("off");
  await page.goto(`/admin/acme/audit?kind=${encodeURIComponent("account.inter_agent_changed")}`);
  await expect(page.locator('[data-testid="audit-row"][data-actor="human:alice"]')).toHaveCount(2);
});

test("who may message the agent: alice restricts it to one agent and an id not created yet, then opens it; a viewer only reads", async ({
  browser,
}) => {
  const { page } = alice;
  await page.goto(PAGE);
  const section = page.getByTestId("sender-allowlist");
  await expect(section.getByTestId("sender-allowlist-state")).toHaveText("Any agent in this account.");
  await section.getByTestId("senders-only").check();
  await section.locator('[data-testid="senders-allow"][value="xss-bot"]').check();
  await section.getByTestId("senders-allow-more").fill("later-bot");
  await section.getByTestId("sender-allowlist-form-submit").click();
  await expect(section.getByTestId("sender-allowlist-form-ok")).toContainText("only xss-bot, later-bot");
  await expect(section.getByTestId("sender-allowlist-state")).toContainText("Only these agents: xss-bot, later-bot");
  await expect(section.getByTestId("sender-allowlist-unknown")).toContainText("later-bot");

  const vic = await signedInContext(browser, LOGINS.vic);
  try {
    await vic.page.goto(PAGE);
    await expect(vic.page.getByTestId("sender-allowlist-state")).toContainText("Only these agents: xss-bot, later-bot");
    await expect(vic.page.getByTestId("sender-allowlist-readonly")).toBeVisible();
    await expect(vic.page.getByTestId("sender-allowlist-form")).toHaveCount(0);
  } finally {
    await vic.context.close();
  }

  await section.getByTestId("senders-any").check();
  await section.getByTestId("sender-allowlist-form-submit").click();
  await expect(section.getByTestId("sender-allowlist-state")).toHaveText("Any agent in this account.");
  await page.goto(`/admin/acme/audit?kind=${encodeURIComponent("agent.senders_changed")}`);
  await expect(page.locator('[data-testid="audit-row"][data-actor="human:alice"]')).toHaveCount(2);
});

test("alice addresses a directive to one session from the agent's page; only that session drains it", async () => {
  const { page } = alice;
  const { hubUrl, keys } = e2eState();
  const s = await register({ label: "picker run" });
  expect(s.status).toBe(201);
  const sessionId = s.body.session.id as string;
  await page.goto(PAGE);
  const picker = page.getByTestId("directive-session");
  await expect(picker.locator(`option[value="${sessionId}"]`)).toHaveCount(1);
  await picker.selectOption(sessionId);
  await page.getByTestId("directive-title").fill("only for the picker run");
  await page.getByTestId("directive-send").click();
  await expect(page.getByTestId("directive-sent")).toBeVisible();
  const drain = async (query: string) => {
    const res = await fetch(`${hubUrl}/v1/inbox${query}`, {
      headers: { authorization: `Bearer ${keys.acme![AGENT]}` },
    });
    return ((await res.json()) as { messages: { directive: { title: string; to: string } }[] }).messages;
  };
  expect((await drain("")).map((m) => m.directive.title)).not.toContain("only for the picker run");
  const mine = await drain(`?session=${sessionId}`);
  const got = mine.find((m) => m.directive.title === "only for the picker run");
  expect(got?.directive.to).toBe(`agent:${AGENT}#${sessionId}`);
});
