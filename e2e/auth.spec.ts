/**
 * Sign-in through the dev IdP's real login and consent pages: invited and verified
 * → in; uninvited → refused; unverified email → refused; the identity is bound on first sign-in and
 * later sign-ins match issuer + subject, never email alone.
 */
import pg from "pg";
import { expect, sessionCookie, signIn, signedInContext, test, SESSION_COOKIE } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

async function identitiesOf(email: string): Promise<Array<{ issuer: string; subject: string }>> {
  const client = new pg.Client({ connectionString: e2eState().databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT i.issuer, i.subject FROM auth_identities i JOIN users u ON u.id = i.user_id WHERE u.email = $1`,
      [email],
    );
    return rows;
  } finally {
    await client.end();
  }
}

async function expectRefused(page: import("@playwright/test").Page, login: string) {
  const landed = await signIn(page, login);
  expect(landed.pathname).toBe("/signin");
  expect(landed.searchParams.get("error")).toBe("AccessDenied");
  await expect(page.getByTestId("signin-error")).toBeVisible();
  expect(await sessionCookie(page.context())).toBeUndefined();
  // No session on the server either.
  const session = await page.request.get("/api/auth/session");
  expect(await session.json()).toEqual({});
}

test.describe("sign-in", () => {
  test("the sign-in page offers the configured OIDC provider", async ({ page }) => {
    await page.goto("/signin");
    await expect(page.getByTestId("signin-oidc")).toContainText("Dev IdP");
    await expect(page.getByTestId("no-provider")).toHaveCount(0);
  });

  test("alice (invited, verified) signs in through login and consent and lands in /inbox", async ({ page }) => {
    const landed = await signIn(page, LOGINS.alice);
    expect(landed.pathname).toBe("/inbox");
    expect(await sessionCookie(page.context())).toBeTruthy();
    const session = await (await page.request.get("/api/auth/session")).json();
    expect(session.user?.email).toBe("alice@acme.test");
  });

  test("an uninvited identity is refused", async ({ page }) => {
    await expectRefused(page, LOGINS.eve);
  });

  test("an invited email the IdP does not assert verified is refused", async ({ page }) => {
    await expectRefused(page, LOGINS.mallory);
    expect(await identitiesOf("mallory@acme.test")).toEqual([]);
  });

  test("a second sign-in as alice matches the bound identity; another subject with her email is refused", async ({
    browser,
  }) => {
    const first = await signedInContext(browser, LOGINS.alice);
    await first.context.close();
    const bound = await identitiesOf("alice@acme.test");
    expect(bound).toHaveLength(1);
    expect(bound[0]?.issuer).toBe(e2eState().idpIssuer);

    const again = await signedInContext(browser, LOGINS.alice);
    const session = await (await again.page.request.get("/api/auth/session")).json();
    expect(session.user?.email).toBe("alice@acme.test");
    await again.context.close();
    expect(await identitiesOf("alice@acme.test")).toEqual(bound);

    // Same verified email, different subject: never matched on email alone once bound.
    const context = await browser.newContext({ baseURL: e2eState().hubUrl });
    await expectRefused(await context.newPage(), LOGINS.aliceImposter);
    await context.close();
    expect(await identitiesOf("alice@acme.test")).toEqual(bound);
  });

  test("cancelling on the IdP's login page comes back refused, without a session", async ({ page }) => {
    await page.goto("/signin");
    await page.getByTestId("signin-oidc").click();
    await page.waitForURL((u) => u.origin === new URL(e2eState().idpIssuer).origin);
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL((u) => u.origin === e2eState().hubUrl && u.pathname === "/signin");
    await expect(page.getByTestId("signin-error")).toBeVisible();
    expect(await sessionCookie(page.context())).toBeUndefined();
  });

  test("a callbackUrl cannot send the browser to another site after sign-in", async ({ page }) => {
    for (const target of ["https://evil.example/x", "//evil.example/x"]) {
      const landed = await signIn(page, LOGINS.bob, target);
      expect(landed.origin).toBe(e2eState().hubUrl);
      await page.context().clearCookies();
    }
  });

  test("protocol and auth routes are never redirected to sign-in", async ({ request }) => {
    for (const path of ["/v1/messages/msg_nope", "/.well-known/ma2h", "/healthz", "/readyz", "/api/auth/providers"]) {
      const res = await request.get(path, { maxRedirects: 0 });
      expect(res.status() < 300 || res.status() >= 400, `${path} answered ${res.status()}`).toBe(true);
      expect(res.headers().location, path).toBeUndefined();
    }
    const v1 = await request.get("/v1/messages/msg_nope", { maxRedirects: 0 });
    expect(v1.status()).toBe(401);
    expect((await v1.json()).error?.code).toBe("unauthenticated");
  });

  test("a signed-out visit to the inbox goes to the sign-in page", async ({ page }) => {
    await page.goto("/inbox");
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Finbox/);
    await expect(page.getByTestId("signin-oidc")).toBeVisible();
  });

  test("signing out ends the session on the server", async ({ browser }) => {
    const { context, page } = await signedInContext(browser, LOGINS.bob);
    const token = await sessionCookie(context);
    expect(token).toBeTruthy();
    const csrf = (await (await page.request.get("/api/auth/csrf")).json()).csrfToken as string;
    await page.request.post("/api/auth/signout", {
      form: { csrfToken: csrf, callbackUrl: "/signin" },
      maxRedirects: 0,
    });
    // The old cookie no longer opens a session.
    const replay = await browser.newContext({ baseURL: e2eState().hubUrl });
    await replay.addCookies([{ name: SESSION_COOKIE, value: token as string, url: e2eState().hubUrl }]);
    expect(await (await replay.request.get("/api/auth/session")).json()).toEqual({});
    await replay.close();
    await context.close();
  });
});
