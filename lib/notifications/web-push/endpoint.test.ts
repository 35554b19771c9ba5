/**
 * Which push endpoints a subscription may name: https on a known push service (FCM, Mozilla,
 * Apple, Windows) or a host the operator added in MA2H_PUSH_SERVICES; a dev-allowlisted local
 * service only in dev mode. Anything else — any other https host included — is refused.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { env, resetEnvCache } from "../../env";
import { endpointAllowed } from "./endpoint";

const saved = { ...process.env };

function configure(vars: Record<string, string | undefined>): void {
  process.env = {
    ...saved,
    DATABASE_URL: "postgresql://unused",
    AUTH_SECRET: "unit-test-auth-secret-0123456789abcdef",
  };
  for (const k of ["MA2H_PUSH_SERVICES", "MA2H_DEV_MODE", "MA2H_DEV_CALLBACK_ALLOWLIST", "MA2H_TRUST_PROXY"])
    delete process.env[k];
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) process.env[k] = v;
  resetEnvCache();
}

beforeEach(() => configure({ MA2H_TRUST_PROXY: "1" }));
afterEach(() => {
  process.env = saved;
  resetEnvCache();
});

describe("the known push services are accepted by default", () => {
  it.each([
    "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAAA",
    "https://web.push.apple.com/QGuQyavXutnMH",
    "https://wns2-by3p.notify.windows.com/w/?token=BQYAAA",
    "https://FCM.googleapis.com./fcm/send/x", // case and a trailing dot are the same host
  ])("%s", (url) => {
    expect(endpointAllowed(url)).toBe(true);
  });
});

describe("anything else is refused", () => {
  it.each([
    "https://push.example/x", // https, but no push service
    "https://evil.fcm.googleapis.com.attacker.test/x", // a known name as a label of another host
    "https://googleapis.com/fcm/send/x", // the parent, not the service
    "https://attacker-push.services.mozilla.com.example/x",
    "https://push.services.mozilla.com/x", // the suffix itself is not below it
    "http://fcm.googleapis.com/fcm/send/x", // plaintext
    "https://user:pw@fcm.googleapis.com/fcm/send/x", // credentials in the URL
    "https://192.0.2.7/x",
    "ftp://fcm.googleapis.com/x",
    "not a url",
  ])("%s", (url) => {
    expect(endpointAllowed(url)).toBe(false);
  });
});

describe("MA2H_PUSH_SERVICES extends the list", () => {
  it("an added name and suffix are accepted; the known services stay; others are still refused", () => {
    configure({ MA2H_TRUST_PROXY: "1", MA2H_PUSH_SERVICES: "push.example, *.ntfy.example.org" });
    expect(endpointAllowed("https://push.example/x")).toBe(true);
    expect(endpointAllowed("https://eu.ntfy.example.org/up/abc")).toBe(true);
    expect(endpointAllowed("https://fcm.googleapis.com/fcm/send/x")).toBe(true);
    expect(endpointAllowed("https://sub.push.example/x")).toBe(false); // a name is exact
    expect(endpointAllowed("https://other.example/x")).toBe(false);
  });

  it("a malformed list refuses the start, naming the entry", () => {
    configure({ MA2H_TRUST_PROXY: "1", MA2H_PUSH_SERVICES: "push.example, https://bad/" });
    expect(() => env()).toThrow(/MA2H_PUSH_SERVICES.*https:\/\/bad\//);
  });
});

describe("dev mode", () => {
  it("a plaintext local service is allowed only when its exact origin is allowlisted", () => {
    configure({ MA2H_DEV_MODE: "1", MA2H_DEV_CALLBACK_ALLOWLIST: "http://127.0.0.1:4999" });
    expect(endpointAllowed("http://127.0.0.1:4999/push/1")).toBe(true);
    expect(endpointAllowed("http://127.0.0.1:5000/push/1")).toBe(false);
    expect(endpointAllowed("https://push.example/x")).toBe(false);
  });
});
