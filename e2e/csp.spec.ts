/**
 * The page Content-Security-Policy in a real browser (server/page-headers.ts): /signin and an
 * inbox page carry a policy whose scripts are allowed by a per-request nonce (no 'unsafe-inline')
 * and frame-ancestors 'none'; the page's own scripts run (the inbox hydrates), an inline script
 * without the nonce does not, and the same script with the page's nonce does (the control).
 */
import type { Page, Response } from "@playwright/test";
import { expect, test } from "./support/fixtures";

function nonceOf(response: Response | null): string {
  const policy = response?.headers()["content-security-policy"] ?? "";
  expect(policy).toContain("frame-ancestors 'none'");
  const script = policy.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
  expect(script).not.toContain("'unsafe-inline'");
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(script)?.[1];
  expect(nonce).toBeTruthy();
  return nonce as string;
}

/** Adds an inline script (with `nonce` if given) that sets `window[flag]`; true when it ran. */
async function inlineRuns(page: Page, flag: string, nonce?: string): Promise<boolean> {
  return page.evaluate(
    async ({ flag, nonce }) => {
      const s = document.createElement("script");
      if (nonce) s.nonce = nonce;
      s.textContent = `window[${JSON.stringify(flag)}] = true;`;
      const ran = () => (window as unknown as Record<string, unknown>)[flag] === true;
      // An allowed inline script runs as it is inserted; a refused one never runs and the document
      // reports the violation (an event, dispatched after the insertion): wait for that, not a while.
      const refused = new Promise<void>((r) =>
        document.addEventListener("securitypolicyviolation", () => r(), { once: true }),
      );
      document.body.appendChild(s);
      if (!ran()) await refused;
      return ran();
    },
    { flag, nonce },
  );
}

async function checkPage(page: Page, path: string): Promise<void> {
  const response = await page.goto(path);
  const nonce = nonceOf(response);
  // The nonce is the page's own: Next put it on its scripts (browsers hide it from getAttribute).
  const scriptNonces = await page.evaluate(() => Array.from(document.scripts).map((s) => s.nonce));
  expect(scriptNonces.length).toBeGreaterThan(0);
  expect(new Set(scriptNonces)).toEqual(new Set([nonce]));
  const violations: string[] = [];
  await page.exposeFunction("__cspViolation", (d: string) => violations.push(d));
  await page.evaluate(() =>
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { __cspViolation: (d: string) => void }).__cspViolation(e.effectiveDirective),
    ),
  );
  expect(await inlineRuns(page, "__withoutNonce")).toBe(false);
  await expect.poll(() => violations).toContain("script-src-elem");
  expect(await inlineRuns(page, "__withNonce", nonce)).toBe(true);
}

test("/signin: nonce-based scripts, frame-ancestors 'none', an inline script without the nonce blocked", async ({
  page,
}) => {
  await checkPage(page, "/signin");
  // Hydrated: the client sign-in button is there and live.
  await expect(page.getByTestId("signin-oidc")).toBeEnabled();
});

test("an inbox page: the same policy, a fresh nonce per request, and the page still works", async ({ alice }) => {
  const { page } = alice;
  const first = nonceOf(await page.goto("/inbox"));
  await checkPage(page, "/inbox");
  const again = nonceOf(await page.goto("/inbox"));
  expect(again).not.toBe(first);
  await expect(page.getByRole("heading").first()).toBeVisible();
});
