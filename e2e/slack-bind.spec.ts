/**
 * Slack "who clicked" (docs/notifications.md "Slack: who clicked"), in a real browser: a bind
 * link — minted here in the database as the interactions endpoint would — opened signed out goes
 * through the Hub's sign-in (the dev IdP's real pages) and back to the confirmation, which names the
 * Slack user (by the name the signed click gave, and the id), workspace, person and account; Confirm binds kim; Settings → Slack lists the binding;
 * Remove ends it. initech (kim's account) gets a Slack connection that posts nowhere (no channel, no
 * direct messages) for the duration of this spec only.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { hashCredential } from "../lib/secrets";
import { expect, signIn, test } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

const SLACK_USER = "U0KIME2E";

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: e2eState().databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const bindingsOfKim = () =>
  sql<{ slack_user_id: string }>(
    `SELECT s.slack_user_id FROM slack_identities s JOIN users u ON u.id = s.user_id WHERE u.email = $1`,
    ["kim@initech.test"],
  );

test("a bind link opened signed out: sign in, confirm, see it in settings, remove it", async ({ browser, hub }) => {
  const accountId = (await sql<{ id: string }>(`SELECT id FROM accounts WHERE slug = 'initech'`))[0]?.id as string;
  await sql(
    `INSERT INTO slack_connections (account_id, team_id, team_name, bot_token_sealed, signing_secret_sealed,
       channel_id, direct_messages, connected_by, created_at, updated_at)
     VALUES ($1, 'T0INITECH', 'Initech Slack', 'unused', 'unused', NULL, false, 'human:kim', now(), now())`,
    [accountId],
  );
  const token = randomBytes(32).toString("base64url");
  await sql(
    `INSERT INTO slack_bind_tokens (token_hash, account_id, team_id, slack_user_id, slack_user_name, team_domain,
       expires_at, created_at)
     VALUES ($1, $2, 'T0INITECH', $3, 'kim.k', 'initech-corp', now() + interval '15 minutes', now())`,
    [hashCredential(token), accountId, SLACK_USER],
  );
  const path = `/slack/bind/${token}`;
  const context = await browser.newContext({ baseURL: hub.hubUrl }); // no session
  try {
    const page = await context.newPage();
    await page.goto(path);
    await expect(page).toHaveURL((u) => u.pathname === "/signin" && u.searchParams.get("callbackUrl") === path);
    const landed = await signIn(page, LOGINS.kim, path);
    expect(landed.pathname).toBe(path);

    await expect(page.locator("body")).toHaveAttribute("data-state", "ready");
    await expect(page.getByTestId("slack-bind-warning")).toContainText(
      `Slack user @kim.k (${SLACK_USER}) of workspace Initech Slack will answer as you (kim@initech.test) in account initech`,
    );
    await expect(page.getByTestId("slack-bind-summary").getByTestId("slack-bind-user-name")).toHaveText("@kim.k");
    await expect(page.getByTestId("slack-bind-team-domain")).toHaveText("initech-corp.slack.com");
    await expect(page.getByTestId("slack-bind-warning")).toContainText("Only continue if that Slack user is you.");
    await page.reload(); // opening (and reloading) binds nothing
    expect(await bindingsOfKim()).toEqual([]);

    await page.getByTestId("slack-bind-confirm").click();
    await expect(page.locator("body")).toHaveAttribute("data-state", "bound");
    expect(await bindingsOfKim()).toEqual([{ slack_user_id: SLACK_USER }]);

    // Spent: the link says so and changes nothing.
    const again = await page.goto(path);
    expect(again?.status()).toBe(410);

    await page.goto("/settings/slack");
    const row = page.getByTestId("slack-binding-row");
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute("data-slack-user", SLACK_USER);
    await expect(row).toContainText("initech");
    await expect(row).toContainText("Initech Slack");
    page.once("dialog", (d) => d.accept());
    await row.getByRole("button", { name: "Remove" }).click();
    await expect(page.getByTestId("slack-bindings-empty")).toBeVisible();
    expect(await bindingsOfKim()).toEqual([]);
  } finally {
    await context.close();
    await sql(`DELETE FROM slack_connections WHERE account_id = $1`, [accountId]);
    await sql(`DELETE FROM slack_bind_tokens WHERE account_id = $1`, [accountId]);
  }
});
