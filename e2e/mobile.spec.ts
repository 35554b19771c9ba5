/**
 * Answering from a phone (docs/inbox.md "On your phone", docs/notifications.md "Answering from the
 * notification"), in an account of its own (soylent: rita, lou and zoe; the ship bot's asks are
 * anyone's, the gate bot's confirm asks need two approvals).
 * - The inbox, an item and the settings at 375 px in a touch browser: no horizontal scroll, answer
 *   buttons at least 44 px tall, an answer by tapping alone; the keyboard shortcuts still work.
 * - The Hub is installable (the DevTools protocol's `Page.getInstallabilityErrors`), its service
 *   worker caches only the app shell and shows the offline page without a network.
 * - A notification's action buttons: the Hub's worker pushes to a push service of this spec's own
 *   (a loopback receiver), the spec decrypts the push (RFC 8291) and shows its notification in the
 *   browser's service worker, then dispatches the `notificationclick` of an action there (Playwright
 *   cannot click an OS notification). The answer is the token's person's; replaying the token and
 *   lou using rita's are refused; on the gate bot's ask it is one approval of two.
 */
import { createDecipheriv, createECDH, type ECDH, hkdfSync, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page, type Worker } from "@playwright/test";
import { api, envelope, expect, marker, pullTerminal, signIn, test } from "./support/fixtures";
import { screenshotPath } from "./support/screenshots";
import { e2eState, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const ship = () => api("soylent", "shipbot");
const gate = () => api("soylent", "gatebot/prod");

const PHONE = { width: 375, height: 812 };
const TABLET = { width: 768, height: 1024 };

async function phone(
  browser: Browser,
  login: string,
  viewport = PHONE,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: e2eState().hubUrl,
    viewport,
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  const page = await context.newPage();
  const landed = await signIn(page, login);
  expect(landed.pathname).toBe("/inbox");
  return { context, page };
}

/** The page is no wider than the screen: nothing to scroll sideways. */
async function expectNoSideScroll(page: Page): Promise<void> {
  const { scroll, client, wide } = await page.evaluate(() => {
    const client = document.documentElement.clientWidth;
    // What sticks out, for the failure message: the innermost elements past the right edge.
    const wide = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > client + 0.5)
      .filter((e) => ![...e.children].some((c) => c.getBoundingClientRect().right > client + 0.5))
      .slice(0, 8)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`);
    return { scroll: document.documentElement.scrollWidth, client, wide };
  });
  expect(scroll, `${page.url()} scrolls sideways: ${wide.join(", ")}`).toBeLessThanOrEqual(client);
}

const row = (page: Page, id: string) => page.locator(`[data-testid="inbox-row"][data-id="${id}"]`);

// First in the file: the account's inbox holds only these two asks when it is shown.
test("screenshots at 375 × 812 and 768 × 1024", async ({ browser }) => {
  const t = ship();
  await t.submit(
    envelope("ask", t.agentId, {
      title: "Deploy #142 to production?",
      priority: "high",
      body: "All checks pass on the candidate build. Approve to deploy, deny to hold.",
    }),
  );
  const id = await t.submit(
    envelope("ask", t.agentId, {
      title: "Roll back the #141 canary?",
      priority: "urgent",
      body: "The canary's error rate rose to **0.4 %** in the last 10 minutes.\n\n- p95 latency +120 ms\n- 3 alerts firing",
      context: [{ kind: "data", data: { canary: "eu-west-1", error_rate: 0.004, alerts: 3 } }],
    }),
  );
  for (const [name, viewport] of [
    ["phone", PHONE],
    ["tablet", TABLET],
  ] as const) {
    const { context, page } = await phone(browser, LOGINS.rita, viewport);
    try {
      await page.goto("/inbox");
      await expect(row(page, id)).toBeVisible();
      await expectNoSideScroll(page);
      await page.waitForTimeout(300);
      await page.screenshot({ path: screenshotPath(`screenshot-mobile-inbox-${name}.png`) });
      await page.goto(`/inbox/${id}`);
      await expect(page.getByTestId("item-title")).toBeVisible();
      await expectNoSideScroll(page);
      await page.waitForTimeout(300);
      await page.screenshot({ path: screenshotPath(`screenshot-mobile-item-${name}.png`), fullPage: true });
    } finally {
      await context.close();
    }
  }
});

test("at 375 px: the inbox, an item and settings fit, and a tap answers", async ({ browser }) => {
  const t = ship();
  const title = `Phone ${marker()}`;
  const id = await t.submit(envelope("ask", t.agentId, { title, priority: "high" }));
  const { context, page } = await phone(browser, LOGINS.rita);
  try {
    await page.goto("/inbox");
    await expect(row(page, id)).toBeVisible();
    await expectNoSideScroll(page);
    await row(page, id).getByRole("link", { name: title }).tap();
    await expect(page).toHaveURL(new RegExp(`/inbox/${id}$`));
    await expect(page.getByTestId("item-title")).toHaveText(title);
    await expectNoSideScroll(page);
    const approve = page.getByTestId("option-approve");
    const submit = page.getByTestId("submit-answer");
    for (const target of [approve, page.getByTestId("option-deny"), submit])
      expect((await target.boundingBox())?.height ?? 0, "a touch target is at least 44 px tall").toBeGreaterThanOrEqual(
        44,
      );
    await approve.tap();
    await submit.tap();
    await expect(page.getByTestId("outcome")).toContainText("human:rita");
    const answered = await pullTerminal(t, id);
    expect(answered.status).toBe("answered");
    expect(answered.response.response).toMatchObject({ actor: "human:rita", value: "approve" });
    for (const path of ["/settings/notifications", "/settings/devices"]) {
      await page.goto(path);
      await expect(page.getByTestId("settings-tabs")).toBeVisible();
      await expectNoSideScroll(page);
    }
  } finally {
    await context.close();
  }
});

test("at 375 px with a keyboard: j/k move the cursor and Enter opens", async ({ browser }) => {
  const t = ship();
  const ids = [
    await t.submit(envelope("ask", t.agentId, { title: `Keys ${marker()}`, priority: "urgent" })),
    await t.submit(envelope("ask", t.agentId, { title: `Keys ${marker()}`, priority: "urgent" })),
  ];
  const { context, page } = await phone(browser, LOGINS.rita);
  try {
    await page.goto("/inbox");
    await expect(row(page, ids[1] as string)).toBeVisible();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const cursor = page.locator('[data-testid="inbox-row"][data-cursor="true"]');
    await expect(cursor).toHaveCount(1);
    const first = await cursor.getAttribute("data-id");
    await page.keyboard.press("j");
    await expect(cursor).not.toHaveAttribute("data-id", first as string);
    await page.keyboard.press("k");
    await expect(cursor).toHaveAttribute("data-id", first as string);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/inbox/${first}$`));
  } finally {
    await context.close();
  }
});

/** The Hub's service worker in this context, once it is there. */
async function hubWorker(context: BrowserContext): Promise<Worker> {
  const find = () => context.serviceWorkers().find((w) => w.url().endsWith("/sw.js"));
  return find() ?? (await context.waitForEvent("serviceworker", { predicate: (w) => w.url().endsWith("/sw.js") }));
}

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads a test's fixtures from this destructuring; it needs none
test("installable, with an app shell that keeps no item and an offline page", async ({}, testInfo) => {
  const t = ship();
  const title = `Shell ${marker()}`;
  const id = await t.submit(envelope("ask", t.agentId, { title }));
  // A browser profile of its own: Chromium installs nothing from an incognito context (every
  // `browser.newContext()` is one), so installability is asked of a persistent one.
  const profile = mkdtempSync(join(tmpdir(), "ma2h-e2e-pwa-"));
  const context = await chromium.launchPersistentContext(profile, {
    ...testInfo.project.use.launchOptions,
    baseURL: e2eState().hubUrl,
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    expect((await signIn(page, LOGINS.rita)).pathname).toBe("/inbox");
    await page.goto(`/inbox/${id}`);
    await expect(page.getByTestId("item-title")).toHaveText(title);
    await hubWorker(context);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const manifest = await (await page.request.get("/manifest.webmanifest")).json();
    expect(manifest).toMatchObject({ start_url: "/inbox", display: "standalone", short_name: "MA2H" });
    await page.goto("/inbox");
    await expect(row(page, id)).toBeVisible();
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send("Page.getInstallabilityErrors")) as {
      installabilityErrors: { errorId: string }[];
    };
    expect(installabilityErrors).toEqual([]);

    // The shell's cache holds the shell only: never a page, an item or an API answer.
    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys())
        for (const req of await (await caches.open(name)).keys()) urls.push(new URL(req.url).pathname);
      return urls;
    });
    expect(cached).toContain("/offline.html");
    for (const path of cached)
      expect(path, "only the shell is cached").toMatch(
        /^\/(_next\/static\/|offline\.html$|manifest\.webmanifest$|icons\/)/,
      );

    await context.setOffline(true);
    await page.goto(`/inbox/${id}`).catch(() => undefined);
    await expect(page.getByTestId("offline")).toBeVisible();
    await expect(page.getByText(title)).toHaveCount(0);
    await context.setOffline(false);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

/** A push service of our own on the dev allowlist's loopback port: it keeps what the Hub pushes. */
function pushService(): Promise<{ server: Server; received: Buffer[] }> {
  const received: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push(Buffer.concat(chunks));
      res.writeHead(201).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(e2eState().pushReceiverPort, "127.0.0.1", () => resolve({ server, received })),
  );
}

interface Pushed {
  id: string;
  title: string;
  priority: string;
  actions?: { value: string; label: string; token: string }[];
}

/** Opens one push (RFC 8291 over RFC 8188 aes128gcm, one record) with the browser's keys. */
function openPush(body: Buffer, browserKey: ECDH, auth: Buffer): Pushed {
  const salt = body.subarray(0, 16);
  const idlen = body[20] as number;
  const serverKey = body.subarray(21, 21 + idlen);
  const sealed = body.subarray(21 + idlen);
  const info = (s: string) => Buffer.from(`${s}\0`);
  const ikm = hkdfSync(
    "sha256",
    browserKey.computeSecret(serverKey),
    auth,
    Buffer.concat([info("WebPush: info"), browserKey.getPublicKey(), serverKey]),
    32,
  );
  const cek = Buffer.from(hkdfSync("sha256", Buffer.from(ikm), salt, info("Content-Encoding: aes128gcm"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", Buffer.from(ikm), salt, info("Content-Encoding: nonce"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const padded = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end > 0 && padded[end] === 0) end--; // the last record's delimiter (2), then padding
  return JSON.parse(padded.subarray(0, end).toString("utf8")) as Pushed;
}

/** A device of the signed-in person: the browser's keys are ours, so we read what is pushed to it. */
async function subscribe(page: Page): Promise<(id: string) => Promise<Pushed>> {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const port = e2eState().pushReceiverPort;
  const subscription = {
    endpoint: `http://127.0.0.1:${port}/push/${randomBytes(8).toString("hex")}`,
    expirationTime: null,
    keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
  };
  const status = await page.evaluate(async (sub) => {
    const res = await fetch("/api/push/subscriptions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sub),
      referrerPolicy: "same-origin",
    });
    return res.status;
  }, subscription);
  expect(status).toBe(201);
  // The push about item `id` (a reminder of an earlier item may come in between).
  return async (id) => {
    let found: Pushed | undefined;
    await expect
      .poll(
        () => {
          found = service.received.map((b) => openPush(b, ecdh, auth)).find((p) => p.id === id);
          return found !== undefined;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    return found as Pushed;
  };
}

let service: { server: Server; received: Buffer[] };

/** What the spec uses of the service worker's global scope (the DOM types have no worker scope). */
interface HubWorkerScope {
  registration: {
    showNotification(title: string, options: unknown): Promise<void>;
    getNotifications(filter?: { tag?: string }): Promise<{ title: string }[]>;
  };
  /** public/sw.js's own: the notification of one push's item. */
  notificationFor(item: unknown): [string, unknown];
  dispatchEvent(event: Event): boolean;
}
declare const NotificationEvent: new (type: string, init: { notification: unknown; action: string }) => Event;

/** Shows the push's notification in the worker and clicks its `action` there; resolves at once. */
async function clickAction(worker: Worker, pushed: Pushed, action: string): Promise<void> {
  await worker.evaluate(
    async ({ pushed, action }) => {
      const sw = self as unknown as HubWorkerScope;
      const [title, options] = sw.notificationFor({ ...pushed, actions: pushed.actions ?? [] });
      await sw.registration.showNotification(title, options);
      const [shown] = await sw.registration.getNotifications({ tag: pushed.id });
      if (!shown) throw new Error("no notification shown");
      sw.dispatchEvent(new NotificationEvent("notificationclick", { notification: shown, action }));
    },
    { pushed, action },
  );
}

async function shownTitles(worker: Worker): Promise<string[]> {
  return worker.evaluate(async () =>
    (await (self as unknown as HubWorkerScope).registration.getNotifications()).map((n) => n.title),
  );
}

/** POSTs a token as the worker does, from this page's session. */
async function postToken(page: Page, token: string): Promise<{ status: number; body: any }> {
  return page.evaluate(async (token) => {
    const res = await fetch("/api/push/answer", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
      referrerPolicy: "same-origin",
    });
    return { status: res.status, body: await res.json() };
  }, token);
}

test.describe("answering from the notification", () => {
  test.beforeAll(async () => {
    service = await pushService();
  });
  test.afterAll(async () => {
    await new Promise((r) => service.server.close(r));
  });

  test("an action answers once, as its person; lou cannot use rita's; a quorum records one approval", async ({
    browser,
  }) => {
    const rita = await phone(browser, LOGINS.rita);
    const lou = await phone(browser, LOGINS.lou);
    try {
      await rita.context.grantPermissions(["notifications"]);
      await rita.page.goto("/inbox");
      const worker = await hubWorker(rita.context);
      const pushFor = await subscribe(rita.page);

      // A confirm ask: the push carries Approve and Deny, each with a token.
      const t = ship();
      const title = `Deploy ${marker()}`;
      const id = await t.submit(envelope("ask", t.agentId, { title }));
      const pushed = await pushFor(id);
      expect(pushed).toMatchObject({ id, title });
      expect(pushed.actions?.map((a) => [a.value, a.label])).toEqual([
        ["approve", "Approve"],
        ["deny", "Deny"],
      ]);
      await clickAction(worker, pushed, "answer-0");
      const answered = await pullTerminal(t, id);
      expect(answered.status).toBe("answered");
      expect(answered.response.response).toMatchObject({ actor: "human:rita", value: "approve" });
      await expect.poll(() => shownTitles(worker)).toContain(`Approved — ${title}`);
      // Replayed, the token is spent; its sibling finds the item closed.
      const approve = pushed.actions?.[0]?.token as string;
      expect(await postToken(rita.page, approve)).toMatchObject({ status: 410, body: { state: "used" } });
      expect(await postToken(rita.page, pushed.actions?.[1]?.token as string)).toMatchObject({
        status: 409,
        body: { state: "closed" },
      });

      // rita's token in lou's signed-in browser: refused, and the item stays open.
      const other = await t.submit(envelope("ask", t.agentId, { title: `Other ${marker()}` }));
      const ritas = await pushFor(other);
      expect(await postToken(lou.page, ritas.actions?.[0]?.token as string)).toMatchObject({
        status: 403,
        body: { state: "other_person" },
      });
      expect(["open", "delivered"]).toContain((await t.pull(other)).status);

      // A select with three options gets no buttons: its notification only opens the item.
      const three = await t.submit(
        envelope("ask", t.agentId, {
          title: `Three ${marker()}`,
          request: {
            mode: "select",
            options: [
              { value: "a", label: "A" },
              { value: "b", label: "B" },
              { value: "c", label: "C" },
            ],
          },
        }),
      );
      const plain = await pushFor(three);
      expect(plain.actions).toBeUndefined();

      // The gate bot's ask needs two approvals: rita's button records one, the item stays open.
      const g = gate();
      const gated = await g.submit(envelope("ask", g.agentId, { title: `Gate ${marker()}` }));
      const gatedPush = await pushFor(gated);
      await clickAction(worker, gatedPush, "answer-0");
      await expect.poll(() => shownTitles(worker)).toContain(`Approval recorded (1 of 2) — ${gatedPush.title}`);
      expect(["open", "delivered"]).toContain((await g.pull(gated)).status);
    } finally {
      await rita.context.close();
      await lou.context.close();
    }
  });
});
