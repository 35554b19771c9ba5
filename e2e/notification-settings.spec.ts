/**
 * The notification settings pages (docs/notifications.md "Preferences"): kim (member of
 * initech) reaches `/settings/notifications` from the settings tabs, is told email is off on this
 * Hub (the e2e Hub has no SMTP_URL), saves preferences (a bad time zone is refused and changes
 * nothing) and resets them; she gets the 404 of an unknown page for the account's admin page;
 * dana (owner of demo) saves the account's defaults and toggles answering from an email without
 * signing in, and the audit log names each change with its actor.
 */
import type { Page } from "@playwright/test";
import { expect, signedInContext, test } from "./support/fixtures";
import { LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

/** The account's audit rows of one kind, oldest first (as the export gives them). */
async function auditEvents(page: Page, slug: string, event: string): Promise<Array<Record<string, unknown>>> {
  const res = await page.request.get(`/admin/${slug}/audit/export?kind=${encodeURIComponent(event)}`);
  expect(res.status()).toBe(200);
  return (await res.text())
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.event === event);
}

test("a member saves and resets her own preferences", async ({ kim }) => {
  const page = kim.page;
  await page.goto("/settings/tokens");
  await page.getByTestId("settings-tab-notifications").click();
  await expect(page).toHaveURL(/\/settings\/notifications$/);
  // The e2e Hub has SMTP_URL (global-setup's capture server): no "email is off" notice
  // (test/notification-pages.test.ts shows it on a Hub without).
  await expect(page.getByTestId("email-off")).toHaveCount(0);
  const form = page.getByTestId("save-prefs-initech");
  await expect(page.getByTestId("prefs-initech-source")).toContainText("defaults");
  // The built-in defaults: asks/tasks on, notify off (opt-in).
  await expect(form.getByTestId("pref-initech-email-asktask")).toBeChecked();
  await expect(form.getByTestId("pref-initech-email-notify")).not.toBeChecked();

  await form.getByTestId("pref-initech-email-notify").check();
  await form.getByTestId("pref-initech-email-digest").selectOption("daily");
  await form.getByTestId("pref-initech-email-minpriority").selectOption("high");
  await form.getByTestId("pref-initech-timezone").selectOption("Europe/Berlin");
  await form.getByTestId("pref-initech-quiet-on").check();
  await form.getByTestId("pref-initech-quiet-start").fill("21:30");
  await form.getByTestId("pref-initech-quiet-end").fill("06:45");
  await form.getByTestId("pref-initech-quiet-urgent").uncheck();
  await form.getByTestId("save-prefs-initech-submit").click();
  await expect(form.getByTestId("save-prefs-initech-ok")).toContainText("Saved");

  await page.reload();
  await expect(page.getByTestId("prefs-initech-source")).toContainText("Your own choices");
  const saved = page.getByTestId("save-prefs-initech");
  await expect(saved.getByTestId("pref-initech-email-notify")).toBeChecked();
  await expect(saved.getByTestId("pref-initech-email-digest")).toHaveValue("daily");
  await expect(saved.getByTestId("pref-initech-email-minpriority")).toHaveValue("high");
  await expect(saved.getByTestId("pref-initech-timezone")).toHaveValue("Europe/Berlin");
  await expect(saved.getByTestId("pref-initech-quiet-start")).toHaveValue("21:30");
  await expect(saved.getByTestId("pref-initech-quiet-end")).toHaveValue("06:45");
  await expect(saved.getByTestId("pref-initech-quiet-urgent")).not.toBeChecked();

  // Quiet hours that start where they end are refused with the reason; nothing changes.
  await saved.getByTestId("pref-initech-quiet-end").fill("21:30");
  await saved.getByTestId("save-prefs-initech-submit").click();
  await expect(saved.getByTestId("save-prefs-initech-error")).toContainText("quiet hours must start and end");
  await page.reload();
  await expect(page.getByTestId("save-prefs-initech").getByTestId("pref-initech-quiet-end")).toHaveValue("06:45");

  // Back to the account's defaults: the page re-renders without her own choices (and the reset button).
  await page.getByTestId("reset-prefs-initech-submit").click();
  await expect(page.getByTestId("reset-prefs-initech")).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("prefs-initech-source")).toContainText("defaults");
  await expect(page.getByTestId("save-prefs-initech").getByTestId("pref-initech-email-notify")).not.toBeChecked();
});

test("a member cannot reach the account's notification settings (404)", async ({ kim }) => {
  const res = await kim.page.goto("/admin/initech/notifications");
  expect(res?.status()).toBe(404);
});

test("an owner saves the account's defaults and toggles answering from an email; both audited", async ({ browser }) => {
  const { context, page } = await signedInContext(browser, LOGINS.dana);
  try {
    await page.goto("/admin/demo/agents");
    await page.getByTestId("tab-notifications").click();
    await expect(page).toHaveURL(/\/admin\/demo\/notifications$/);
    await expect(page.getByTestId("email-off")).toHaveCount(0);

    const form = page.getByTestId("save-defaults");
    await form.getByTestId("defaults-email-notify").check();
    await form.getByTestId("defaults-email-digest").selectOption("hourly");
    await form.getByTestId("save-defaults-submit").click();
    await expect(form.getByTestId("save-defaults-ok")).toContainText("Saved demo's notification defaults");
    await page.reload();
    await expect(page.getByTestId("save-defaults").getByTestId("defaults-email-notify")).toBeChecked();
    await expect(page.getByTestId("save-defaults").getByTestId("defaults-email-digest")).toHaveValue("hourly");

    // The defaults are what a person of demo who chose nothing sees on their own page.
    await page.goto("/settings/notifications");
    await expect(page.getByTestId("save-prefs-demo").getByTestId("pref-demo-email-notify")).toBeChecked();

    await page.goto("/admin/demo/notifications");
    await expect(page.getByTestId("email-answer-state")).toContainText("on");
    await page.getByTestId("toggle-email-answer-submit").click();
    await expect(page.getByTestId("toggle-email-answer-ok")).toContainText("must sign in");
    await page.reload();
    await expect(page.getByTestId("email-answer-state")).toContainText("off");
    await page.getByTestId("toggle-email-answer-submit").click();
    await expect(page.getByTestId("toggle-email-answer-ok")).toContainText("may answer");
    await page.reload();
    await expect(page.getByTestId("email-answer-state")).toContainText("on");

    // High-priority and restricted asks need sign-in by default; the owner relaxes it and back.
    await expect(page.getByTestId("email-answer-sensitive-state")).toContainText("off");
    await expect(page.getByTestId("email-answer-sensitive-state")).toContainText("people must sign in");
    await page.getByTestId("toggle-email-answer-sensitive-submit").click();
    await expect(page.getByTestId("toggle-email-answer-sensitive-ok")).toContainText(
      "may answer high/urgent and restricted asks from an email without signing in",
    );
    await page.reload();
    await expect(page.getByTestId("email-answer-sensitive-state")).toContainText("the email link alone is enough");
    await page.getByTestId("toggle-email-answer-sensitive-submit").click();
    await expect(page.getByTestId("toggle-email-answer-sensitive-ok")).toContainText("must sign in");
    await page.reload();
    await expect(page.getByTestId("email-answer-sensitive-state")).toContainText("off");
    const sensitive = (await auditEvents(page, "demo", "notification.email_answer_changed")).filter(
      (e) => (e.detail as { sensitive?: boolean } | undefined)?.sensitive === true,
    );
    expect(sensitive.map((e) => [e.actor, (e.detail as { enabled: boolean }).enabled])).toEqual([
      ["human:dana", true],
      ["human:dana", false],
    ]);

    // The reminder delays: a bad value is refused with its field named and changes nothing; a good
    // one is saved, shown in force (with the escalation following at twice it), and audited.
    const delays = page.getByTestId("reminder-form");
    await delays.getByTestId("reminder-normal-remind").fill("soon");
    await delays.getByTestId("reminder-form-submit").click();
    await expect(delays.getByTestId("reminder-form-error")).toContainText("normal");
    await expect(page.getByTestId("reminder-policy-normal")).toContainText("240 min");
    await delays.getByTestId("reminder-normal-remind").fill("90");
    await delays.getByTestId("reminder-low-remind").fill("off");
    await delays.getByTestId("reminder-form-submit").click();
    await expect(delays.getByTestId("reminder-form-ok")).toBeVisible();
    await page.reload();
    await expect(page.getByTestId("reminder-policy-normal")).toContainText("90 min");
    await expect(page.getByTestId("reminder-policy-normal")).toContainText("180 min");
    await expect(page.getByTestId("reminder-form").getByTestId("reminder-normal-remind")).toHaveValue("90");
    const reminders = await auditEvents(page, "demo", "notifications.reminders_changed");
    expect(reminders.at(-1)).toMatchObject({ actor: "human:dana" });

    const defaults = await auditEvents(page, "demo", "notification.defaults_changed");
    expect(defaults.at(-1)).toMatchObject({
      actor: "human:dana",
      detail: { changed: ["channels.email.digest", "channels.email.notify"] },
    });
    const answers = await auditEvents(page, "demo", "notification.email_answer_changed");
    const base = answers.filter((e) => (e.detail as { sensitive?: boolean } | undefined)?.sensitive !== true);
    expect(base.slice(-2).map((e) => [e.actor, e.detail])).toEqual([
      ["human:dana", { enabled: false }],
      ["human:dana", { enabled: true }],
    ]);
  } finally {
    await context.close();
  }
});
