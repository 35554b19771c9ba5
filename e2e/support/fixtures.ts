/**
 * Shared fixtures and helpers for the specs: the run's state, sign-in through the dev IdP's real
 * login (and consent) pages, and a small /v1 client for the agent's side (submit, pull) and an
 * operator's (resolve with a PAT).
 */
import { test as base, expect, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { envelopeFactory } from "../../test/support/envelope";
import { waitUntil } from "../../test/support/wait";
import { e2eState, LOGINS, type E2EState } from "./state";

export { expect };

/** A browser context signed in through the real sign-in flow, with its page (landed on /inbox). */
export interface SignedIn {
  context: BrowserContext;
  page: Page;
}

/**
 * `alice` and `kim`: worker-scoped signed-in contexts, so a spec's `test.beforeAll` can take one and
 * its serial tests share it, as they did with signedInContext() in beforeAll. Signed in on first use
 * in a worker and closed when the worker ends.
 */
export const test = base.extend<{ hub: E2EState }, { alice: SignedIn; kim: SignedIn }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this destructuring; it has none
  hub: async ({}, use) => use(e2eState()),
  // biome-ignore lint/correctness/noEmptyPattern: as above — no dependencies
  baseURL: async ({}, use) => use(e2eState().hubUrl),
  alice: [async ({ browser }, use) => useSignedIn(browser, LOGINS.alice, use), { scope: "worker" }],
  kim: [async ({ browser }, use) => useSignedIn(browser, LOGINS.kim, use), { scope: "worker" }],
});

async function useSignedIn(browser: Browser, login: string, use: (s: SignedIn) => Promise<void>): Promise<void> {
  const signedIn = await signedInContext(browser, login);
  await use(signedIn);
  await signedIn.context.close();
}

export const SESSION_COOKIE = "next-auth.session-token";

/**
 * Signs in on the Hub's sign-in page through the dev IdP: types `login` on the IdP's login page,
 * allows on its consent page if shown, and waits until the browser is back on the Hub.
 * Returns the Hub URL the browser landed on. `at`: another Hub and IdP pair than the run's
 * (entra.spec.ts runs its own).
 */
export async function signIn(
  page: Page,
  login: string,
  callbackPath = "/inbox",
  at: { hubUrl: string; idpIssuer: string } = e2eState(),
): Promise<URL> {
  const { hubUrl, idpIssuer } = at;
  const t0 = Date.now();
  const mark = (s: string) => process.env.DEBUG_SIGNIN && console.log(`signIn ${login}: ${s} +${Date.now() - t0}ms`);
  await page.goto(`${hubUrl}/signin?callbackUrl=${encodeURIComponent(callbackPath)}`);
  mark("signin page");
  await page.getByTestId("signin-oidc").click();
  await page.waitForURL((u) => u.origin === new URL(idpIssuer).origin);
  mark("idp");
  await expect(page.getByRole("heading", { name: /sign in/i })).toBeVisible();
  await page.locator('input[name="login"]').fill(login);
  await page.getByRole("button", { name: "Sign in" }).click();
  const allow = page.getByRole("button", { name: "Allow" });
  const backOnHub = page.waitForURL((u) => u.origin === hubUrl, { timeout: 30_000 });
  const first = await Promise.race([
    allow.waitFor({ state: "visible", timeout: 30_000 }).then(() => "consent" as const),
    backOnHub.then(() => "hub" as const),
  ]);
  mark(first);
  if (first === "consent") {
    await allow.click();
    await backOnHub;
  }
  mark("back");
  // Settle on the final Hub page (next-auth's callback redirects once more).
  await page.waitForURL((u) => u.origin === hubUrl && !u.pathname.startsWith("/api/auth/"), { timeout: 30_000 });
  return new URL(page.url());
}

/** A fresh browser context signed in as `login`, with its page on the inbox. */
export async function signedInContext(
  browser: Browser,
  login: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: e2eState().hubUrl });
  const page = await context.newPage();
  const landed = await signIn(page, login);
  expect(landed.pathname, `sign-in as ${login} should land in /inbox`).toBe("/inbox");
  return { context, page };
}

export async function sessionCookie(context: BrowserContext): Promise<string | undefined> {
  return (await context.cookies(e2eState().hubUrl)).find((c) => c.name === SESSION_COOKIE)?.value;
}

let seq = 0;
/** A unique marker for titles, so a spec can find its own items among everyone's. */
export function marker(prefix = "e2e"): string {
  seq += 1;
  return `${prefix}-${Date.now().toString(36)}-${process.pid}-${seq}`;
}

export interface Api {
  submit(envelope: Record<string, unknown>, key?: string): Promise<string>;
  pull(id: string, key?: string): Promise<Record<string, any>>;
  resolveWithToken(id: string, token: string, body: Record<string, unknown>): Promise<{ status: number; body: any }>;
}

/** The agent's and an operator's side of the protocol, over real HTTP. */
export function api(account = "acme", agentId = "deploybot/dev-team"): Api & { key: string; agentId: string } {
  const state = e2eState();
  const key = state.keys[account]?.[agentId];
  if (!key) throw new Error(`no key for ${agentId} in ${account}`);
  const json = async (res: Response) => {
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  };
  return {
    key,
    agentId,
    async submit(envelope, k = key) {
      const res = await fetch(`${state.hubUrl}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${k}`, "content-type": "application/json" },
        body: JSON.stringify(envelope),
        redirect: "manual",
      });
      const body = await json(res);
      if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(body)}`);
      return body.id as string;
    },
    async pull(id, k = key) {
      const res = await fetch(`${state.hubUrl}/v1/messages/${id}`, {
        headers: { authorization: `Bearer ${k}` },
        redirect: "manual",
      });
      const body = await json(res);
      if (res.status !== 200) throw new Error(`pull: ${res.status} ${JSON.stringify(body)}`);
      return body;
    },
    async resolveWithToken(id, token, body) {
      const res = await fetch(`${state.hubUrl}/v1/messages/${id}/resolve`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        redirect: "manual",
      });
      return { status: res.status, body: await json(res) };
    },
  };
}

/** Polls the agent's view until the message is terminal (the UI's write may be a moment ahead). */
export async function pullTerminal(a: Api, id: string, timeoutMs = 10_000): Promise<Record<string, any>> {
  // Still open when the time is up: that body, for the caller's assertion to show.
  return waitUntil(
    () => a.pull(id),
    (body) => body.status !== "open" && body.status !== "delivered",
    { timeout: timeoutMs, every: 250 },
  ).catch(() => a.pull(id));
}

/** A valid v0.5 envelope for the agent `agentId`: now, a confirm ask, a unique title and key per call. */
export const envelope = envelopeFactory({
  createdAt: () => new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  runId: (n) => `run_e2e_${n}`,
  project: "web-app",
  title: (type) => `${type} ${marker()}`,
  idempotencyKey: () => `e2e-${marker()}`,
  request: { mode: "confirm" },
  action: { instructions: "Do the thing", checklist: [{ text: "first", done: false }] },
});
