/**
 * What the global setup hands to the specs: the Hub's and the IdP's URLs, the agents' keys and the
 * people's tokens, and where the Hub's logs are being written. Passed through the environment
 * (MA2H_E2E_STATE, inherited by the test workers) and mirrored in test-results/e2e-state.json.
 */
import { readFileSync } from "node:fs";

export interface E2EState {
  hubUrl: string;
  idpIssuer: string;
  databaseUrl: string;
  /** account slug → agent.id → API key */
  keys: Record<string, Record<string, string>>;
  /** account slug → handle → personal access token */
  tokens: Record<string, Record<string, string>>;
  /** The loopback port on MA2H_DEV_CALLBACK_ALLOWLIST, for a spec's push receiver (admin.spec.ts). */
  receiverPort: number;
  /** Another loopback port on that allowlist: mobile.spec.ts's push service, where the worker pushes. */
  pushReceiverPort: number;
  /** Where the run's SMTP server writes each mail it accepts (`<n>.eml`; test/support/mail-capture.ts). */
  mailDir: string;
  /** The web and worker processes' combined stdout/stderr. */
  logFiles: string[];
}

export const STATE_ENV = "MA2H_E2E_STATE";

export function e2eState(): E2EState {
  const raw = process.env[STATE_ENV];
  if (!raw)
    throw new Error(
      `${STATE_ENV} is not set: run the specs with \`npx playwright test\` (the global setup starts the Hub)`,
    );
  return JSON.parse(raw) as E2EState;
}

export function hubLogs(): string {
  return e2eState()
    .logFiles.map((f) => {
      try {
        return readFileSync(f, "utf8");
      } catch {
        return "";
      }
    })
    .join("\n");
}

/** Logins the dev IdP knows for the run (see global-setup.ts). */
export const LOGINS = {
  alice: "alice", // alice@acme.test, verified, owner of acme
  bob: "bob", // bob@acme.test, verified, member of acme
  vic: "vic", // vic@acme.test, verified, viewer of acme
  mallory: "mallory", // mallory@acme.test — invited, but the IdP says email_verified: false
  eve: "eve", // eve@acme.test, verified, never invited
  aliceImposter: "alice-elsewhere", // alice@acme.test verified, but another subject
  gina: "gina@globex.test", // member of another account (globex)
  kim: "kim@initech.test", // member of initech (the keyboard spec's own account)
  dana: "dana@demo.test", // owner of demo (the docs screenshots' own account)
  // hooli: identities.spec.ts's own people (a shared browser, a second identity).
  hank: "hank@hooli.test", // owner of hooli
  ivy: "ivy@hooli.test", // member of hooli
  jo: "jo@hooli.test", // member of hooli
  joElsewhere: "jo-elsewhere", // jo@hooli.test verified, under another subject
  // umbrella: groups.spec.ts's own people.
  una: "una@umbrella.test", // owner of umbrella
  abe: "abe@umbrella.test", // admin of umbrella
  // cyberdyne: policy.spec.ts's own people.
  olga: "olga@cyberdyne.test", // owner of cyberdyne
  adam: "adam@cyberdyne.test", // admin of cyberdyne
  // wayne: quorum.spec.ts's own people.
  waynesAlice: "alice@wayne.test", // owner of wayne, in group sre
  waynesBob: "bob@wayne.test", // member of wayne, in group sre
  waynesSam: "sam@wayne.test", // member of wayne, the deploy bot's sponsor
  // stark: delegation.spec.ts's own people.
  starksBob: "bob@stark.test", // member of stark, asked by the review bot's policy
  starksCarol: "carol@stark.test", // member of stark, bob's delegate
  starksFinn: "finn@stark.test", // member of stark, group finance
  // oscorp: similar-asks.spec.ts's own person.
  norman: "norman@oscorp.test", // owner of oscorp
  // tyrell: insights.spec.ts's own people.
  otto: "otto@tyrell.test", // owner of tyrell
  nora: "nora@tyrell.test", // member of tyrell
  // soylent: mobile.spec.ts's own people.
  rita: "rita@soylent.test", // owner of soylent
  lou: "lou@soylent.test", // member of soylent
} as const;
