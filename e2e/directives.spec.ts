/**
 * Directives in the browser: alice sends one from an agent's page and from an item, the
 * agent drains it over /v1/inbox (verified independently against the published keys), the track
 * turns `delivered` live, the agent acks with a note and alice sees "acknowledged" and the note —
 * sanitized like any agent text. Presence before sending; a viewer has no composer.
 */
import { DirectiveAgent } from "../test/support/directive-agent";
import { api, envelope, expect, marker, signedInContext, test, type SignedIn } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const AGENT = "deploybot/dev-team";
let alice: SignedIn;

test.beforeAll(async ({ alice: signedIn }) => {
  alice = signedIn; // the worker's signed-in alice, shared by this file's serial tests
});

type Entry = { directive: Record<string, any>; signature: string };

/** Drains the agent's mailbox until the directive titled `title` arrives (others stay un-acked and come back later). */
async function drainFor(title: string, key: string): Promise<Entry> {
  const { hubUrl } = e2eState();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${hubUrl}/v1/inbox?wait=5`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: Entry[] };
    const hit = messages.find((e) => e.directive.title === title);
    if (hit) return hit;
  }
  throw new Error(`directive ${title} never drained`);
}

async function ack(key: string, ids: string[], note?: string) {
  const res = await fetch(`${e2eState().hubUrl}/v1/inbox/ack`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(note === undefined ? { ids } : { ids, note }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { acked: number };
}

test("send from the agent page, drain, ack with a note: alice sees it acknowledged", async () => {
  const { page } = alice;
  const a = api("acme", AGENT);
  const res = await page.goto(`/inbox/agents/acme/${AGENT}`);
  expect(res?.status()).toBe(200);
  await expect(page.getByTestId("agent-id")).toHaveText(AGENT);
  await expect(page.getByTestId("directive-presence")).toContainText(/listening now|will receive it on its next run/);

  const title = `Pause deploys ${marker()}`;
  await page.getByTestId("directive-title").fill(title);
  await page.getByTestId("directive-body").fill("**Hold** every deploy.");
  await page.getByTestId("directive-priority").selectOption("urgent");
  await page.getByTestId("directive-send").click();
  await expect(page.getByTestId("directive-sent")).toContainText("dir_");
  const row = page.getByTestId("directive-row").filter({ hasText: title });
  await expect(row.getByTestId("directive-status")).toHaveText("queued");

  // The agent's side: drain, verify from the spec (not from @ma2h/protocol), check the content.
  const entry = await drainFor(title, a.key);
  const me = new DirectiveAgent(`agent:${AGENT}`, `${e2eState().hubUrl}/.well-known/ma2h-keys`);
  expect(await me.receive(entry)).toMatchObject({ ok: true });
  expect(entry.directive).toMatchObject({
    from: "human:alice",
    to: `agent:${AGENT}`,
    priority: "urgent",
    body: "**Hold** every deploy.",
  });

  // Live: the track moves without a reload; the agent is now listening.
  await expect(row.getByTestId("directive-status")).toHaveText("delivered");
  await page.reload();
  await expect(page.getByTestId("directive-presence")).toContainText("listening now");

  const note = "Got it — pausing. <img src=x onerror=alert(1)> [docs](javascript:alert(2))";
  expect(await ack(a.key, [entry.directive.id], note)).toEqual({ acked: 1 });
  const acked = page.getByTestId("directive-row").filter({ hasText: title });
  await expect(acked.getByTestId("directive-status")).toHaveText("acknowledged");
  const shown = acked.getByTestId("directive-note");
  await expect(shown).toContainText("Got it — pausing.");
  // Untrusted text stays text: no element, no javascript: link.
  await expect(shown.locator("img")).toHaveCount(0);
  await expect(shown.locator('a[href^="javascript"]')).toHaveCount(0);

  // The same track on the Directives page.
  await page.goto("/inbox/directives");
  const listed = page.getByTestId("directive-row").filter({ hasText: title });
  await expect(listed.getByTestId("directive-status")).toHaveText("acknowledged");
  await expect(listed.getByTestId("directive-note")).toContainText("Got it — pausing.");
});

test("send from an item page to the agent that submitted it", async () => {
  const { page } = alice;
  const a = api("acme", AGENT);
  const itemTitle = `Which region? ${marker()}`;
  const id = await a.submit(envelope("ask", a.agentId, { title: itemTitle }));
  await page.goto(`/inbox/${id}`);
  await expect(page.getByTestId("item-title")).toHaveText(itemTitle);
  const compose = page.getByTestId("directive-compose");
  await expect(compose).toBeVisible();
  const title = `Use eu-west ${marker()}`;
  await compose.getByTestId("directive-title").fill(title);
  await compose.getByTestId("directive-send").click();
  await expect(compose.getByTestId("directive-sent")).toContainText("dir_");
  const entry = await drainFor(title, a.key);
  expect(entry.directive.from).toBe("human:alice");
  await ack(a.key, [entry.directive.id]);
});

test("a viewer reads the tracks but has no composer; another account's agent page is 404", async ({ browser }) => {
  const vic = await signedInContext(browser, LOGINS.vic);
  try {
    await vic.page.goto(`/inbox/agents/acme/${AGENT}`);
    await expect(vic.page.getByTestId("agent-id")).toHaveText(AGENT);
    await expect(vic.page.getByTestId("directive-compose")).toHaveCount(0);
    await expect(vic.page.getByTestId("directive-table")).toBeVisible();
  } finally {
    await vic.context.close();
  }
  const res = await alice.page.goto(`/inbox/agents/globex/${AGENT}`); // not alice's account
  expect(res?.status()).toBe(404);
});
