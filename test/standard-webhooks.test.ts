/**
 * Standard Webhooks on a callback binding, against real web + worker processes and a loopback
 * receiver: once an admin turns it on (the secret shown once), each push carries `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` beside `MA2H-Signature`; the `standardwebhooks`
 * package's verifier and the §9.2 verifier both accept the same push; a retry keeps `webhook-id`
 * (the obligation's) with a fresh timestamp; a tampered body fails both; a rotated secret replaces
 * the old at once; turned off, the headers are gone and §9.2 alone remains.
 */
// covers: lib/delivery/standard-webhooks.ts, lib/delivery/binding-webhooks.ts, lib/delivery/push-attempt.ts
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { addBinding } from "../lib/principals/bindings";
import { AgentVerifier } from "./support/agent-verify";
import { cliInProcess } from "./support/cli-in-process";
import { useHubFixture } from "./support/hub-fixture";
import { resolveAs, submitPush, type Auth } from "./support/push-kit";
import type { Received, Receiver } from "./support/receiver";

const A = "hooks/bot";
const HMAC_SECRET = "the-ma2h-hmac-secret";
const HMAC: Auth = { scheme: "hmac", secret_ref: "cb" };
let rx: Receiver;
let bindingId = "";

const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  receivers: 1,
  setup: async (h) => {
    rx = h.receiver;
    const b = await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: rx.origin,
      secretRef: "cb",
      secret: HMAC_SECRET,
    });
    bindingId = b.id;
  },
  server: "pair",
  env: (h) => ({ MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin, MA2H_PUSH_BASE_DELAY_MS: "300" }),
});
const acme = hub.account("acme");

/** The CLI's `binding webhooks`, in this process against the test database; the JSON it prints. */
async function webhooks(change: string): Promise<{ binding: { standard_webhooks: boolean }; secret?: string }> {
  const run = await cliInProcess(["binding", "webhooks", bindingId, change, "--json"]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

async function pushed(path: string, replies: Parameters<Receiver["script"]>[1] = []): Promise<Received[]> {
  rx.script(path, replies);
  const sent = await submitPush(hub.web.url, acme.keys[A] as string, A, `${rx.origin}${path}`, HMAC, { name: path });
  await resolveAs(hub.web.url, acme.tokens.alice as string, sent.id, { resolution: "answered", value: "ship" });
  return rx.waitFor(path, replies.length + 1, 30_000);
}

const headersOf = (r: Received) => ({
  "webhook-id": String(r.headers["webhook-id"]),
  "webhook-timestamp": String(r.headers["webhook-timestamp"]),
  "webhook-signature": String(r.headers["webhook-signature"]),
});

describe("Standard Webhooks on a binding", () => {
  it("both verifiers accept one push; a retry keeps webhook-id; a tampered body fails both", async () => {
    const on = await webhooks("on");
    expect(on.binding.standard_webhooks).toBe(true);
    expect(on.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // Sealed at rest: the secret is nowhere in the row.
    const row = await db().callbackBinding.findUniqueOrThrow({ where: { id: bindingId } });
    expect(row.standardWebhooksSecret).not.toContain((on.secret as string).slice(6));
    expect(JSON.stringify(row)).not.toContain(HMAC_SECRET);

    // The first attempt gets a 503: the retry must carry the same webhook-id, a timestamp of its own.
    const [first, retry] = await pushed("/sw/retry", [503]);
    if (!first || !retry) throw new Error("two attempts expected");
    const wh = new Webhook(on.secret as string);
    for (const got of [first, retry]) {
      expect(wh.verify(got.body, headersOf(got))).toEqual(JSON.parse(got.body));
      expect(JSON.parse(got.body)).toMatchObject({ resolution: "answered" });
      const verdict = await new AgentVerifier({
        callbackUrl: `${rx.origin}/sw/retry`,
        hmacSecrets: [HMAC_SECRET],
      }).verify(got.headers, got.body, got.at / 1000);
      expect(verdict).toMatchObject({ ok: true });
    }
    expect(retry.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    const delivery = await db().pushDelivery.findFirstOrThrow({ where: { callbackUrl: `${rx.origin}/sw/retry` } });
    expect(first.headers["webhook-id"]).toBe(delivery.id);
    expect(retry.headers["ma2h-signature"]).not.toBe(first.headers["ma2h-signature"]); // fresh t and jti

    // One byte changed: both refuse.
    const tampered = retry.body.replace('"ship"', '"SHIP"');
    expect(() => wh.verify(tampered, headersOf(retry))).toThrow();
    const verdict = await new AgentVerifier({
      callbackUrl: `${rx.origin}/sw/retry`,
      hmacSecrets: [HMAC_SECRET],
    }).verify(retry.headers, tampered, retry.at / 1000);
    expect(verdict.ok).toBe(false);
    // Another binding's (or a guessed) secret does not verify it either.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(retry.body, headersOf(retry)),
    ).toThrow();
  });

  it("a rotated secret replaces the old at once; off leaves §9.2 alone; each change is audited", async () => {
    const before = (await db().callbackBinding.findUniqueOrThrow({ where: { id: bindingId } })).standardWebhooksSecret;
    expect(before).not.toBeNull();
    const again = await cliInProcess(["binding", "webhooks", bindingId, "on", "--json"]);
    expect(again.code).not.toBe(0); // already on: rotate instead
    const rotated = await webhooks("rotate");
    const [got] = await pushed("/sw/rotated");
    if (!got) throw new Error("no push");
    expect(new Webhook(rotated.secret as string).verify(got.body, headersOf(got))).toBeTruthy();

    const off = await webhooks("off");
    expect(off.binding.standard_webhooks).toBe(false);
    expect(off.secret).toBeUndefined();
    const [plain] = await pushed("/sw/off");
    if (!plain) throw new Error("no push");
    expect(plain.headers["webhook-id"]).toBeUndefined();
    expect(plain.headers["webhook-signature"]).toBeUndefined();
    expect(
      await new AgentVerifier({ callbackUrl: `${rx.origin}/sw/off`, hmacSecrets: [HMAC_SECRET] }).verify(
        plain.headers,
        plain.body,
        plain.at / 1000,
      ),
    ).toMatchObject({ ok: true });

    const events = await db().auditEvent.findMany({
      where: { event: { startsWith: "binding.standard_webhooks" } },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => e.event)).toEqual([
      "binding.standard_webhooks_on",
      "binding.standard_webhooks_rotated",
      "binding.standard_webhooks_off",
    ]);
    expect(JSON.stringify(events.map((e) => e.detail))).not.toContain("whsec_");
  });
});
