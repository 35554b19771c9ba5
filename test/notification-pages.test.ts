/**
 * The notification settings pages on a Hub without `SMTP_URL` (docs/notifications.md
 * "Preferences"): both say that email is off, and still show (and keep) the choices. The e2e specs
 * run a Hub with email on, so the off state is shown here, over HTTP with a browser session.
 */
// covers: app/settings/notifications/page.tsx, app/admin/[account]/notifications/page.tsx
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { createWebSession, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { useHubFixture } from "./support/hub-fixture";

const hub = useHubFixture({
  accounts: {
    acme: {
      agents: ["bot/acme"],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "mia", role: "member" },
      ],
    },
  },
});

async function page(handle: string, path: string): Promise<{ status: number; html: string }> {
  const user = await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` } });
  const token = `sess-${handle}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  await createWebSession(user.id, token, new Date(Date.now() + 3_600_000));
  const res = await fetch(`${hub.url}${path}`, {
    headers: { cookie: `${SESSION_COOKIE_NAMES[1]}=${token}` },
    redirect: "manual",
  });
  return { status: res.status, html: await res.text() };
}

describe("without SMTP_URL", () => {
  it("a person's notification settings say email is off, and still show the form", async () => {
    const { status, html } = await page("mia", "/settings/notifications");
    expect(status).toBe(200);
    expect(html).toContain('data-testid="email-off"');
    expect(html).toContain("Email is off on this Hub");
    expect(html).toContain('data-testid="save-prefs-acme"');
  });

  it("the account's notification settings say so too; a member gets 404 there", async () => {
    const owner = await page("olga", "/admin/acme/notifications");
    expect(owner.status).toBe(200);
    expect(owner.html).toContain('data-testid="email-off"');
    expect(owner.html).toContain('data-testid="reminder-delays"');
    expect((await page("mia", "/admin/acme/notifications")).status).toBe(404);
  });
});

describe("signed out", () => {
  it("each settings page sends the person to sign in with that page as the way back", async () => {
    for (const path of ["/settings/notifications", "/settings/activity", "/settings/identities", "/settings/tokens"]) {
      const res = await fetch(`${hub.url}${path}`, { redirect: "manual" });
      expect([res.status, path]).toEqual([307, path]);
      const to = new URL(res.headers.get("location") ?? "", hub.url);
      expect([to.pathname, to.searchParams.get("callbackUrl")]).toEqual(["/signin", path]);
    }
  });
});
