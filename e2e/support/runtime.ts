/**
 * Handles the global setup leaves for the global teardown (both run in the Playwright runner
 * process; kept on globalThis so they survive separate module loads).
 */
import type { DevIdp } from "../../scripts/dev-idp-provider";
import type { HubProcess } from "../../test/support/hub";
import type { MailCapture } from "../../test/support/mail-capture";

export interface E2ERuntime {
  hubs: HubProcess[];
  idp?: DevIdp;
  dropDatabase?: () => Promise<void>;
  /** The SMTP server the Hub mails to (email-answer.spec.ts reads what it received). */
  mail?: MailCapture;
}

const KEY = Symbol.for("ma2h.e2e.runtime");

export function e2eRuntime(): E2ERuntime {
  const g = globalThis as { [KEY]?: E2ERuntime };
  g[KEY] ??= { hubs: [] };
  return g[KEY];
}
