/**
 * Invitations in the browser: olive, owner of initrode, adds hugo — who already sits in vandelay —
 * on the Members page; he is listed as invited, not as a member, and sees nothing of initrode until
 * he accepts the invitation in his inbox; then initrode's ask is in his inbox and he is a member.
 * Removed again, he keeps his session and vandelay. The accounts are this spec's own (global-setup.ts).
 */
import type { Page } from "@playwright/test";
import { api, envelope, expect, marker, signedInContext, test } from "./support/fixtures";

const OLIVE = "olive@initrode.test";
const HUGO = "hugo@vandelay.test";

function acceptDialogs(page: Page): void {
  page.on("dialog", (d) => void d.accept());
}

test("invite → accept: nothing of the account reaches the invited person until they accept", async ({ browser }) => {
  const initrodeAsk = `initrode ask ${marker()}`;
  const vandelayAsk = `vandelay ask ${marker()}`;
  const olive = await signedInContext(browser, OLIVE);
  const hugo = await signedInContext(browser, HUGO);
  acceptDialogs(olive.page);
  try {
    const page = olive.page;
    await page.goto("/admin/initrode/members");
    await page.getByTestId("member-email").fill(HUGO);
    await page.getByTestId("member-handle").fill("hugo");
    await page.getByTestId("member-role").selectOption("member");
    await page.getByTestId("add-member-submit").click();
    await expect(page.getByTestId("add-member-ok")).toContainText("invited as hugo");
    await expect(page.locator('[data-testid="invitation-row"][data-handle="hugo"]')).toHaveAttribute(
      "data-status",
      "invited",
    );
    await expect(page.locator('[data-testid="member-row"][data-handle="hugo"]')).toHaveCount(0);

    // An ask in initrode and one in vandelay: hugo's inbox shows vandelay's and the invitation only.
    await api("initrode", "initrode-bot").submit(envelope("ask", "initrode-bot", { title: initrodeAsk }));
    await api("vandelay", "vandelay-bot").submit(envelope("ask", "vandelay-bot", { title: vandelayAsk }));
    await hugo.page.goto("/inbox");
    await expect(hugo.page.getByText(vandelayAsk)).toBeVisible();
    await expect(hugo.page.getByText(initrodeAsk)).toHaveCount(0);
    const invitation = hugo.page.locator('[data-testid="invitation"][data-account="initrode"]');
    await expect(invitation).toContainText("human:olive");
    await expect(invitation).toContainText("human:hugo");

    await hugo.page.getByTestId("accept-invitation-initrode-submit").click();
    await expect(hugo.page.getByText(initrodeAsk)).toBeVisible();
    await expect(hugo.page.getByTestId("invitations")).toHaveCount(0);
    await page.reload();
    await expect(page.locator('[data-testid="member-row"][data-handle="hugo"]')).toHaveAttribute("data-role", "member");
    await expect(page.getByTestId("invitations-table")).toHaveCount(0);

    // Removed from initrode, hugo keeps his session and vandelay: his next load shows vandelay only.
    await page.getByTestId("remove-hugo-submit").click();
    await expect(page.locator('[data-testid="member-row"][data-handle="hugo"]')).toHaveCount(0);
    await hugo.page.reload();
    await expect(hugo.page).toHaveURL(/\/inbox$/);
    await expect(hugo.page.getByText(vandelayAsk)).toBeVisible();
    await expect(hugo.page.getByText(initrodeAsk)).toHaveCount(0);
  } finally {
    await olive.context.close();
    await hugo.context.close();
  }
});

test("an address new to the Hub is invited too: listed under Invited, no seat until it accepts", async ({
  browser,
}) => {
  const olive = await signedInContext(browser, OLIVE);
  try {
    const page = olive.page;
    const email = `newcomer-${marker()
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")}@nowhere.test`;
    await page.goto("/admin/initrode/members");
    await page.getByTestId("member-email").fill(email);
    await page.getByTestId("member-handle").fill("newcomer");
    await page.getByTestId("member-role").selectOption("member");
    await page.getByTestId("add-member-submit").click();
    await expect(page.getByTestId("add-member-ok")).toContainText(`${email} invited as newcomer (member)`);
    await expect(page.getByTestId("add-member-ok")).toContainText("ask them to sign in");
    const row = page.locator('[data-testid="invitation-row"][data-handle="newcomer"]');
    await expect(row).toHaveAttribute("data-status", "invited");
    await expect(row).toContainText(email);
    await expect(page.locator('[data-testid="member-row"][data-handle="newcomer"]')).toHaveCount(0);
    // Withdrawn, it leaves nothing behind on the page.
    acceptDialogs(page);
    await page.getByTestId("revoke-invitation-newcomer-submit").click();
    await expect(row).toHaveCount(0);
  } finally {
    await olive.context.close();
  }
});
