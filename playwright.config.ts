/**
 * End-to-end tests: Debian's Chromium (no Playwright browser download) against the built Hub and the
 * dev OpenID provider, both started by e2e/global-setup.ts. `npm run build` first.
 *
 * Two workers, one per project: the specs that work in the shared `acme` account (and globex, its
 * outsider) run one after another in one worker, the specs with accounts of their own (demo,
 * initech, initrode/vandelay, hooli, umbrella, cyberdyne, wayne, oscorp, tyrell, contoso, soylent: e2e/global-setup.ts) one after another in the other. The two
 * share no account, so they cannot see each other's items, counts or settings — but for the sign-in
 * spec (auth.spec.ts), which signs acme's people in and out in browsers of its own and writes no
 * item, setting or account audit row: it runs in the second worker so the two take about as long.
 */
import { defineConfig } from "@playwright/test";

/** The specs that use accounts of their own (see above); every other spec is the acme worker's. */
const OWN_ACCOUNTS = [
  "admin-screenshots.spec.ts",
  "auth.spec.ts",
  "groups.spec.ts",
  "entra.spec.ts",
  "identities.spec.ts",
  "invitations.spec.ts",
  "keyboard.spec.ts",
  "mobile.spec.ts",
  "notification-settings.spec.ts",
  "policy.spec.ts",
  "quorum.spec.ts",
  "screenshots.spec.ts",
  "similar-asks.spec.ts",
  "slack-bind.spec.ts",
  "web-push.spec.ts",
  "xss.spec.ts",
];
const ownAccounts = new RegExp(`(^|/)(${OWN_ACCOUNTS.map((f) => f.replace(/\./g, "\\.")).join("|")})$`);

export default defineConfig({
  testDir: "e2e",
  workers: 2,
  fullyParallel: false,
  projects: [
    { name: "acme", testIgnore: ownAccounts, workers: 1 },
    { name: "own-accounts", testMatch: ownAccounts, workers: 1 },
  ],
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: "list",
  globalSetup: "./e2e/global-setup.ts",
  globalTeardown: "./e2e/global-teardown.ts",
  outputDir: "test-results/e2e",
  use: {
    browserName: "chromium",
    screenshot: "only-on-failure",
    trace: "off",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        // A test's page lives for seconds: its JavaScript runs on V8's baseline tiers only, never
        // recompiled by the optimising ones (Maglev, TurboFan) — the same code, about a fifth less
        // CPU for the whole run on the 2-core CI box (the end-to-end stage is CPU-bound there).
        "--js-flags=--no-opt --no-maglev",
      ],
    },
  },
});
