/**
 * "Notify me on this device" (docs/notifications.md "Browser push") in a real browser, up to
 * the subscription request: Chromium cannot reach a real push service here, so
 * `PushManager.prototype.subscribe` is stubbed to hand back a synthetic subscription (and record the
 * `applicationServerKey` it was given). The real service worker registers; the page fetches the
 * Hub's VAPID key, subscribes with it and posts the subscription; the device then shows in
 * Settings → Devices, where kim (initech's member) removes it.
 */
import { createECDH, randomBytes } from "node:crypto";
import { expect, test } from "./support/fixtures";

test("kim turns on push for this browser, sees the device in settings and removes it", async ({ kim }) => {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const subscription = {
    endpoint: `https://push.example.test/e2e/${randomBytes(8).toString("hex")}`,
    expirationTime: null,
    keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
  };
  // A page of its own: the stub must not outlive this test in kim's shared context.
  const page = await kim.context.newPage();
  await page.addInitScript((sub) => {
    const w = window as unknown as { __push: { keys: string[]; sub: unknown } };
    w.__push = { keys: [], sub: null };
    const b64url = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
      const key = options?.applicationServerKey;
      w.__push.keys.push(
        key instanceof ArrayBuffer || ArrayBuffer.isView(key)
          ? b64url(new Uint8Array(key as ArrayBuffer))
          : String(key),
      );
      w.__push.sub = {
        endpoint: sub.endpoint,
        expirationTime: null,
        options: { userVisibleOnly: options?.userVisibleOnly },
        toJSON: () => sub,
        unsubscribe: async () => {
          w.__push.sub = null;
          return true;
        },
      };
      return w.__push.sub as PushSubscription;
    };
    PushManager.prototype.getSubscription = async () => w.__push.sub as PushSubscription | null;
  }, subscription);

  await page.goto("/inbox");
  const enable = page.getByTestId("push-enable");
  // The button appears once the page has hydrated and asked the browser for its subscription: the
  // first inbox load of the run, on a loaded box, can take longer than the default 10 s.
  await expect(enable).toHaveText("Notify me on this device", { timeout: 30_000 });
  const served = page.waitForResponse((r) => r.url().endsWith("/api/push/key"));
  const posted = page.waitForRequest((r) => r.url().endsWith("/api/push/subscriptions") && r.method() === "POST");
  await enable.click();
  const key = ((await (await served).json()) as { public_key: string }).public_key;
  expect(Buffer.from(key, "base64url")).toHaveLength(65);
  // The page subscribed with exactly the key the Hub served, then posted what the browser gave it.
  const request = await posted;
  expect(await page.evaluate(() => (window as unknown as { __push: { keys: string[] } }).__push.keys)).toEqual([key]);
  expect(request.postDataJSON()).toEqual(subscription);
  expect((await request.response())?.status()).toBe(201);
  await expect(page.getByTestId("push-on")).toHaveText("On for this device");
  await expect(page.getByTestId("push-disable")).toBeVisible();

  await page.goto("/settings/tokens");
  await page.getByTestId("settings-tab-devices").click();
  await expect(page).toHaveURL(/\/settings\/devices$/);
  const row = page.getByTestId("device-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Chrome");
  await expect(row).toContainText("never"); // no push yet
  const id = (await row.getAttribute("data-device")) as string;
  page.once("dialog", (d) => void d.accept());
  await page.getByTestId(`remove-device-${id}-submit`).click();
  await expect(page.getByTestId("devices-empty")).toBeVisible();
  await expect(page.getByTestId("device-row")).toHaveCount(0);
  await page.close();
});
