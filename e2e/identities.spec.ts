/**
 * Sign-in binds an identity only to its own person, through the dev IdP's real pages: a first
 * sign-in on a browser where someone else is signed in binds to the invited person whose verified
 * email it carries, in a fresh session that replaces the old one (which ends); a bound identity
 * signing in there gets its own session too. A person links a second identity only while signed in
 * as themselves, sees their identities under Settings → Identities, removes one while another
 * remains, and reads the links and sign-ins under Settings → Activity. hooli's people are this
 * spec's own (global-setup.ts).
 */
import type { Browser } from "@playwright/test";
import pg from "pg";
import { subjectFor } from "../scripts/dev-idp-provider";
import { expect, SESSION_COOKIE, sessionCookie, signIn, signedInContext, test } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

async function identitiesOf(email: string): Promise<Array<{ issuer: string; subject: string }>> {
  const client = new pg.Client({ connectionString: e2eState().databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT i.issuer, i.subject FROM auth_identities i JOIN users u ON u.id = i.user_id
        WHERE u.email = $1 ORDER BY i.created_at, i.id`,
      [email],
    );
    return rows;
  } finally {
    await client.end();
  }
}

/** A browser holding only the Hub session `token` — as a shared browser where that person is signed in. */
async function browserWith(browser: Browser, token: string) {
  const { hubUrl } = e2eState();
  const context = await browser.newContext({ baseURL: hubUrl });
  await context.addCookies([{ name: SESSION_COOKIE, value: token, url: hubUrl }]);
  return { context, page: await context.newPage() };
}

async function sessionEmail(request: import("@playwright/test").APIRequestContext): Promise<string | undefined> {
  return (await (await request.get("/api/auth/session")).json())?.user?.email;
}

/** Whether a session token still opens a session on the Hub (checked from a browser of its own). */
async function stillOpen(browser: Browser, token: string): Promise<boolean> {
  const { context } = await browserWith(browser, token);
  const email = await sessionEmail(context.request);
  await context.close();
  return email !== undefined;
}

// One person's state carries from test to test (jo's identities), so the file runs in order.
test.describe.configure({ mode: "serial" });

test.describe("sign-in on a shared browser", () => {
  test("a first sign-in binds the identity to its own person, never to the signed-in one, in a fresh session", async ({
    browser,
  }) => {
    const hank = await signedInContext(browser, LOGINS.hank);
    const hankToken = (await sessionCookie(hank.context)) as string;
    await hank.context.close();
    const hankBound = await identitiesOf("hank@hooli.test");
    expect(hankBound).toHaveLength(1);

    // The browser where hank is signed in; ivy signs in there for the first time.
    const shared = await browserWith(browser, hankToken);
    expect(await sessionEmail(shared.context.request)).toBe("hank@hooli.test");
    const landed = await signIn(shared.page, LOGINS.ivy);
    expect(landed.pathname).toBe("/inbox");

    // Bound to ivy, not hank; the browser is now ivy's, with a new cookie; hank's session ended.
    expect(await identitiesOf("ivy@hooli.test")).toEqual([
      { issuer: e2eState().idpIssuer, subject: subjectFor("ivy@hooli.test") },
    ]);
    expect(await identitiesOf("hank@hooli.test")).toEqual(hankBound);
    expect(await sessionEmail(shared.context.request)).toBe("ivy@hooli.test");
    const ivyToken = await sessionCookie(shared.context);
    expect(ivyToken).toBeTruthy();
    expect(ivyToken).not.toBe(hankToken);
    expect(await stillOpen(browser, hankToken)).toBe(false);
    await shared.context.close();
  });

  test("a bound identity signing in where someone else is signed in gets its own fresh session", async ({
    browser,
  }) => {
    const hank = await signedInContext(browser, LOGINS.hank);
    const hankToken = (await sessionCookie(hank.context)) as string;
    await hank.context.close();
    const shared = await browserWith(browser, hankToken);
    const landed = await signIn(shared.page, LOGINS.ivy);
    expect(landed.pathname).toBe("/inbox");
    expect(await sessionEmail(shared.context.request)).toBe("ivy@hooli.test");
    expect(await stillOpen(browser, hankToken)).toBe(false);
    expect(await identitiesOf("ivy@hooli.test")).toHaveLength(1);
    expect(await identitiesOf("hank@hooli.test")).toHaveLength(1);
    await shared.context.close();
  });

  test("another person's new identity is refused there, and the signed-in session stays as it was", async ({
    browser,
  }) => {
    // jo-elsewhere carries jo's verified email, and jo already has an identity: only jo, signed in
    // as herself, may link it. hank's session permits nothing — neither a link to hank nor to jo.
    const hank = await signedInContext(browser, LOGINS.hank);
    const hankToken = (await sessionCookie(hank.context)) as string;
    await hank.context.close();
    const jo = await signedInContext(browser, LOGINS.jo);
    await jo.context.close();
    const shared = await browserWith(browser, hankToken);
    const landed = await signIn(shared.page, LOGINS.joElsewhere);
    expect(landed.pathname).toBe("/signin");
    expect(landed.searchParams.get("error")).toBe("AccessDenied");
    expect(await sessionEmail(shared.context.request)).toBe("hank@hooli.test");
    expect(await identitiesOf("hank@hooli.test")).toHaveLength(1);
    expect(await identitiesOf("jo@hooli.test")).toEqual([
      { issuer: e2eState().idpIssuer, subject: subjectFor("jo@hooli.test") },
    ]);
    await shared.context.close();
  });
});

test.describe("a person's identities in settings", () => {
  test("jo links a second identity while signed in as herself, lists both, removes one; the last stays", async ({
    browser,
  }) => {
    const first = await signedInContext(browser, LOGINS.jo);
    const joToken = (await sessionCookie(first.context)) as string;
    await first.context.close();

    // A browser where jo is signed in at the Hub only (no IdP session): Settings → Identities.
    const { context, page } = await browserWith(browser, joToken);
    await page.goto("/settings/tokens");
    await page.getByTestId("settings-tab-identities").click();
    await page.waitForURL(/\/settings\/identities$/);
    await expect(page.getByTestId("identity-row")).toHaveCount(1);
    await expect(page.getByTestId("identity-last")).toBeVisible();

    // Link another: sign in again with it, while signed in here.
    const landed = await signIn(page, LOGINS.joElsewhere, "/settings/identities");
    expect(landed.pathname).toBe("/settings/identities");
    expect(await sessionEmail(context.request)).toBe("jo@hooli.test");
    const rows = page.getByTestId("identity-row");
    await expect(rows).toHaveCount(2);
    await expect(page.locator('[data-testid="identity-row"][data-subject="another-subject-for-jo"]')).toContainText(
      e2eState().idpIssuer,
    );
    expect((await identitiesOf("jo@hooli.test")).map((i) => i.subject)).toEqual([
      subjectFor("jo@hooli.test"),
      "another-subject-for-jo",
    ]);

    // Remove the first; the other remains and cannot be removed.
    const firstId = (await rows.first().getAttribute("data-identity")) as string;
    page.once("dialog", (d) => void d.accept());
    await page.getByTestId(`unlink-identity-${firstId}-submit`).click();
    await expect(page.getByTestId("identity-row")).toHaveCount(1);
    await expect(page.getByTestId("identity-row")).toHaveAttribute("data-subject", "another-subject-for-jo");
    await expect(page.getByTestId("identity-last")).toBeVisible();
    await expect(page.locator('[data-testid^="unlink-identity-"]')).toHaveCount(0);
    expect((await identitiesOf("jo@hooli.test")).map((i) => i.subject)).toEqual(["another-subject-for-jo"]);

    // The removed identity no longer signs in (and, jo having one already, is not re-bound by email).
    const fresh = await browser.newContext({ baseURL: e2eState().hubUrl });
    const refused = await signIn(await fresh.newPage(), LOGINS.jo);
    expect(refused.searchParams.get("error")).toBe("AccessDenied");
    await fresh.close();

    // Activity: the links, the removal and the sign-ins, newest first, and in no account's audit log.
    await page.getByTestId("settings-tab-activity").click();
    await page.waitForURL(/\/settings\/activity$/);
    const events = await page
      .getByTestId("activity-row")
      .evaluateAll((r) => r.map((e) => e.getAttribute("data-event")));
    expect(events.slice(0, 3)).toEqual(["identity.unlinked", "identity.signed_in", "identity.linked"]);
    expect(events).toEqual(expect.arrayContaining(["identity.linked", "identity.signed_in", "token.created"]));
    await context.close();

    const hank = await signedInContext(browser, LOGINS.hank);
    await hank.page.goto("/admin/hooli/audit");
    await expect(hank.page.getByTestId("audit-row").first()).toBeVisible();
    const accountEvents = await hank.page
      .getByTestId("audit-row")
      .evaluateAll((r) => r.map((e) => e.getAttribute("data-event")));
    expect(accountEvents.filter((e) => /^(identity|token)\./.test(e ?? ""))).toEqual([]);
    await hank.context.close();
  });
});
