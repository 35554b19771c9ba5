/**
 * Agent traffic in the browser (§8.7.1 "Human visibility", §14.2, §16.4.1): addressed messages
 * between acme's agents `traffic-a` and `traffic-b` (e2e/global-setup.ts) stay out of the triage
 * inbox and show on "Agent traffic" with both tracks, for every seat (vic, a viewer, reads them;
 * only owners and admins get Stop).
 *
 * 1. Seeded rows (written as the addressed submit writes them) pin the page's rendering: a bounced
 *    ask auto-cancelled by `system:undeliverable`, its item page with from/to and the mailbox track.
 * 2. The real leg over `/v1`: B registers a session; A asks B's session (`to: agent:B#sess_…`), B
 *    drains it, acks it, answers from its session and A reads the answer — the exchange alice sees
 *    with both tracks. A second ask to B's session is pending when alice stops B from the traffic view; the
 *    session closes, the entry bounces, and A's ask ends `cancelled` by `system:undeliverable`
 *    (§7, §14.2 — applied by the worker), which A reads on its own GET.
 */
import pg from "pg";
import { db } from "../lib/db";
import { mintId } from "@ma2h/protocol/ids";
import { releaseDatabase, useDatabase } from "../test/support/provision";
import { waitUntil } from "../test/support/wait";
import { envelope, expect, marker, signedInContext, test, type SignedIn } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const A = "traffic-a";
const B = "traffic-b";
let alice: SignedIn;

test.beforeAll(async ({ alice: signedIn }) => {
  alice = signedIn;
  // The account opts in to the inter-agent leg (§8.0; the deployment ceiling is on by default).
  const client = new pg.Client({ connectionString: e2eState().databaseUrl });
  await client.connect();
  try {
    await client.query("UPDATE accounts SET inter_agent_enabled = true WHERE slug = 'acme'");
  } finally {
    await client.end();
  }
});

/** One `/v1` call with an agent's key; the JSON answer (or null). */
async function call(
  agentId: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const { hubUrl, keys } = e2eState();
  const res = await fetch(`${hubUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${keys.acme![agentId]}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function registerSession(agentId: string, label: string): Promise<string> {
  const res = await call(agentId, "POST", "/v1/sessions", { label });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.session.id as string;
}

/** A's addressed ask, from A's own session; the ack's id. */
async function askB(title: string, to: string, session: string): Promise<string> {
  const body = { ...envelope("ask", A, { title }), to } as Record<string, any>;
  body.agent.session = session;
  const res = await call(A, "POST", "/v1/messages", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

/** B's session-scoped drain until the entry `id` arrives (§8.7.1). */
async function drainFor(session: string, id: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const res = await call(B, "GET", `/v1/inbox?session=${encodeURIComponent(session)}&wait=2`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (JSON.stringify(res.body).includes(id)) return;
  }
  throw new Error(`${id} never drained by ${session}`);
}

/** Polls A's GET until the message is terminal (the worker applies bounces within a moment). */
async function pullUntilTerminal(id: string, timeoutMs = 15_000): Promise<any> {
  const read = () => call(A, "GET", `/v1/messages/${id}`);
  // Stops at the first non-200 too, so the assertion below sees it; still open at the end: that body.
  const res = await waitUntil(read, (r) => r.status !== 200 || r.body.status !== "open", {
    timeout: timeoutMs,
    every: 250,
  }).catch(read);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const rowOf = (page: SignedIn["page"], id: string) =>
  page.locator(`[data-testid="traffic-row"][data-message-id="${id}"]`);

test("seeded traffic: out of the inbox, on Agent traffic with both tracks, its item page; viewers read, only owners stop", async ({
  browser,
}) => {
  const title = `Seeded ask ${marker()}`;
  const id = mintId("message");
  await useDatabase(e2eState().databaseUrl);
  try {
    const [a, b] = await Promise.all(
      [A, B].map((agentId) => db().agent.findFirstOrThrow({ where: { agentId, account: { slug: "acme" } } })),
    );
    const now = new Date();
    const to = `agent:${B}#sess_seeded0001`;
    const body = { ...envelope("ask", A, { title, body: "**Bold** <img src=x onerror=alert(1)>" }), to };
    await db().message.create({
      data: {
        id,
        accountId: a!.accountId,
        agentRowId: a!.id,
        type: "ask",
        status: "cancelled",
        ma2hVersion: "0.6",
        envelope: JSON.stringify(body),
        title,
        createdAt: now,
        statusChangedAt: now,
        terminalAt: now,
        toAddress: to,
        toAgentRowId: b!.id,
        submitSession: "sess_seededa001",
        destination: JSON.stringify({ reachable: true }),
        resolution: {
          create: { id: mintId("resolution"), resolution: "cancelled", actor: "system:undeliverable", resolvedAt: now },
        },
      },
    });
    // Settled: the worker has nothing left to apply to this bounce.
    await db().mailboxEntry.create({
      data: {
        id,
        accountId: a!.accountId,
        agentRowId: b!.id,
        kind: "message",
        toSession: "sess_seeded0001",
        fromActor: `agent:${A}#sess_seededa001`,
        ma2hVersion: "0.6",
        title,
        content: "{}",
        state: "bounced",
        prior: "delivered",
        deliveredAt: now,
        endedAt: now,
        settledAt: now,
        dropAt: new Date(now.getTime() + 86_400_000),
        visibleAt: now,
        createdAt: now,
      },
    });
  } finally {
    await releaseDatabase();
  }

  const { page } = alice;
  // Not in the triage inbox, not even filtered by its verb or status.
  for (const path of ["/inbox", "/inbox?status=cancelled", "/inbox?verb=ask&status=cancelled"]) {
    await page.goto(path);
    await expect(page.locator("main")).not.toContainText(title);
  }

  await page.getByTestId("nav-traffic").click();
  await page.waitForURL((u) => u.pathname === "/inbox/traffic");
  const row = rowOf(page, id);
  await expect(row.getByTestId("traffic-title")).toHaveText(title);
  await expect(row.getByTestId("traffic-from")).toContainText(A);
  await expect(row.getByTestId("traffic-from")).toContainText("sess_seededa001");
  await expect(row.getByTestId("traffic-to")).toContainText(B);
  await expect(row.getByTestId("traffic-to")).toContainText("sess_seeded0001");
  await expect(row.getByTestId("mailbox-state")).toHaveText("bounced");
  await expect(row.getByTestId("mailbox-prior")).toContainText("prior: delivered");
  await expect(row.getByTestId("resolution-status")).toHaveText("cancelled");
  await expect(row.getByTestId("resolution-actor")).toContainText("system:undeliverable");

  // Filters are links: by mailbox state, then an agent that is on neither side.
  await page.getByTestId("traffic-filter-mailbox").selectOption("bounced");
  await page.getByTestId("traffic-filter-apply").click();
  await page.waitForURL((u) => u.searchParams.get("mailbox") === "bounced");
  await expect(row).toBeVisible();
  await page.goto("/inbox/traffic?agent=session-bot");
  await expect(row).toHaveCount(0);

  // The detail: the item page, body through the sanitizing renderer, no resolve controls for alice
  // (not listed in allowed_resolvers, and the ask is terminal anyway).
  await page.goto("/inbox/traffic");
  await row.getByTestId("traffic-title").click();
  await page.waitForURL((u) => u.pathname === `/inbox/${id}`);
  await expect(page.getByTestId("item-title")).toHaveText(title);
  await expect(page.getByTestId("item-from")).toHaveText(`agent:${A}#sess_seededa001`);
  await expect(page.getByTestId("item-to")).toHaveText(`agent:${B}#sess_seeded0001`);
  await expect(page.getByTestId("item-mailbox-track").getByTestId("mailbox-state")).toHaveText("bounced");
  await expect(page.getByTestId("item-body").locator("strong")).toHaveText("Bold");
  await expect(page.getByTestId("item-body").locator("img")).toHaveCount(0);
  await expect(page.getByTestId("crumb-traffic")).toBeVisible();

  // A viewer reads the traffic and the item; neither a viewer nor a member is offered Stop.
  for (const login of [LOGINS.vic, LOGINS.bob]) {
    const who = await signedInContext(browser, login);
    try {
      await who.page.goto("/inbox/traffic");
      await expect(rowOf(who.page, id).getByTestId("mailbox-state")).toHaveText("bounced");
      await expect(who.page.getByTestId("traffic-agent").first()).toBeVisible();
      await expect(who.page.getByTestId("stop-agent")).toHaveCount(0);
      expect((await who.page.goto(`/inbox/${id}`))?.status()).toBe(200);
    } finally {
      await who.context.close();
    }
  }
  // Another account's member: nothing.
  const gina = await signedInContext(browser, LOGINS.gina);
  try {
    await gina.page.goto("/inbox/traffic");
    await expect(gina.page.locator("main")).not.toContainText(title);
    expect((await gina.page.goto(`/inbox/${id}`))?.status()).toBe(404);
  } finally {
    await gina.context.close();
  }
});

test("the real leg: alice sees A and B's exchange with both tracks, stops B from the traffic view, and A's pending ask ends cancelled by system:undeliverable", async () => {
  const { page } = alice;
  const sessA = await registerSession(A, "coordinator");
  const sessB = await registerSession(B, "worker");

  // The exchange: A asks B's session, B drains and answers from it, A reads the answer.
  const first = `Which region? ${marker()}`;
  const asked = await askB(first, `agent:${B}#${sessB}`, sessA);
  await drainFor(sessB, asked);
  const answered = await call(B, "POST", `/v1/messages/${asked}/resolve?session=${encodeURIComponent(sessB)}`, {
    resolution: "answered",
    value: "approve",
  });
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  const acked = await call(B, "POST", `/v1/inbox/ack?session=${encodeURIComponent(sessB)}`, { ids: [asked] });
  expect(acked.status, JSON.stringify(acked.body)).toBe(200);
  const read = await pullUntilTerminal(asked);
  expect(read.status).toBe("answered");
  expect(read.response.response.actor).toBe(`agent:${B}#${sessB}`);

  // The pending one: addressed to B's session, drained (seen) but never answered.
  const second = `Deploy now? ${marker()}`;
  const pending = await askB(second, `agent:${B}#${sessB}`, sessA);
  await drainFor(sessB, pending);

  // Neither is in the triage inbox.
  await page.goto("/inbox");
  await expect(page.locator("main")).not.toContainText(first);
  await expect(page.locator("main")).not.toContainText(second);

  await page.goto("/inbox/traffic");
  const done = rowOf(page, asked);
  await expect(done.getByTestId("traffic-from")).toContainText(sessA);
  await expect(done.getByTestId("traffic-to")).toContainText(sessB);
  await expect(done.getByTestId("mailbox-state")).toHaveText("acknowledged");
  await expect(done.getByTestId("resolution-status")).toHaveText("answered");
  await expect(done.getByTestId("resolution-actor")).toContainText(`agent:${B}#${sessB}`);
  await expect(done.getByTestId("response-state")).toHaveAttribute("data-state", /delivered-to-agent|acknowledged/);
  const open = rowOf(page, pending);
  await expect(open.getByTestId("mailbox-state")).toHaveText("delivered");
  await expect(open.getByTestId("resolution-status")).toHaveText("open");

  // Stop B from the traffic view: the agent page's own dialog and action.
  const bItem = page.locator(`[data-testid="traffic-agent"][data-agent="${B}"]`);
  await bItem.getByTestId("stop-agent").click();
  const dialog = page.getByRole("dialog", { name: `Stop ${B}?` });
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("stop-agent-confirm").click();
  await expect(bItem.getByTestId("agent-stop-ok")).toContainText(`Stopped ${B}`);
  await expect(bItem.getByTestId("traffic-agent-state")).toContainText("stopped by human:alice");

  // §14.2 / §7: B's session is closed, the un-acked entry bounces, and A's ask is auto-cancelled.
  const ended = await pullUntilTerminal(pending);
  expect(ended.status).toBe("cancelled");
  expect(ended.response.response.actor).toBe("system:undeliverable");
  await expect(open.getByTestId("mailbox-state")).toHaveText("bounced", { timeout: 15_000 });
  await expect(open.getByTestId("mailbox-prior")).toContainText("prior: delivered");
  await expect(open.getByTestId("resolution-status")).toHaveText("cancelled");
  await expect(open.getByTestId("resolution-actor")).toContainText("system:undeliverable");
  await expect(open.getByTestId("traffic-agent-stopped")).toBeVisible();
  // The acknowledged exchange keeps its track: only un-acked mail bounces (§14.2).
  await expect(done.getByTestId("mailbox-state")).toHaveText("acknowledged");
  await expect(done.getByTestId("resolution-status")).toHaveText("answered");

  // Resume, so the pair is left as found.
  await bItem.getByTestId("resume-agent-submit").click();
  await expect(bItem.getByTestId("traffic-agent-state")).toContainText("not stopped");
});
