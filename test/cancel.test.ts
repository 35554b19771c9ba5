/**
 * §8.4 cancel over HTTP against the real server: submitter-bound (dp-002), ask-only, idempotent,
 * loses to any earlier terminal (§7), takes no body, and writes the push obligation with the
 * terminal transition (§3.1) — exactly one row, only for a push callback.
 */
// covers: lib/messages/cancel.ts, lib/http/routes/message-verbs.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { approveOrigin, envelope, type Provisioned } from "./support/provision";
import { validateOfficial } from "./support/spec";
import { waitFor } from "./support/wait";

const A = "deploybot/dev-team";
const B = "overseer/fleet";
const UNKNOWN = "msg_00000000000000000000000000";
const PUSH_URL = "https://agent.example:8443/hook";

const hub = useHubFixture({
  server: "in-process",
  accounts: {
    acme: { agents: [A, B], humans: [{ handle: "alice", role: "owner" }] },
    other: { agents: [A] },
  },
  setup: () => approveOrigin(A, "acme", "https://agent.example:8443"),
});
const acme = hub.account("acme");
const other = hub.account("other");

const agent = (id = A, p: Provisioned = acme) => client(hub.url, p.keys[id]);
const cancel = (id: string, who = A, p: Provisioned = acme) => agent(who, p).post(`/v1/messages/${id}/cancel`);
const read = async (id: string) => (await agent().get(`/v1/messages/${id}`)).body;
const pushAsk = () =>
  envelope("ask", A, {
    request: { mode: "confirm", callback: { mode: "push", url: PUSH_URL, auth: { scheme: "hmac", secret_ref: "cb" } } },
  });

async function submit(body: Record<string, unknown> = envelope("ask", A)): Promise<string> {
  const res = await agent().post("/v1/messages", body);
  expect(res.status).toBe(202);
  return res.body.id as string;
}

function expectError(res: { status: number; body: { error?: { code?: string } } }, status: number, code: string): void {
  expect([res.status, res.body?.error?.code]).toEqual([status, code]);
}

async function expectStatus(id: string, status: string): Promise<void> {
  expect((await read(id)).status).toBe(status);
  expect((await db().message.findUniqueOrThrow({ where: { id } })).status).toBe(status);
}

/** Raw POST: exact bytes back, and bodies/content types the JSON client would not send. */
async function raw(path: string, token: string | undefined, body?: string, type?: string) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (type) headers["content-type"] = type;
  // A Uint8Array body makes fetch send no Content-Type of its own.
  const res = await fetch(hub.url + path, {
    method: "POST",
    headers,
    body: body === undefined ? undefined : new TextEncoder().encode(body),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

describe("POST /v1/messages/{id}/cancel", () => {
  it("cancels the submitter's open ask: exactly {id, status:'cancelled'}, a cancelled Response, idempotent", async () => {
    const id = await submit();
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, status: "cancelled" });

    const got = await read(id);
    expect(validateOfficial("get-message.schema.json", got)).toEqual([]);
    expect(validateOfficial("response.schema.json", got.response)).toEqual([]);
    expect(got.status).toBe("cancelled");
    expect(got.response).toMatchObject({ in_reply_to: id, resolution: "cancelled", defaulted: false });
    expect(got.response.resolution_id).toMatch(/^res_/);
    expect(got.response.response.actor).toBe(`agent:${A}`);
    expect(Number.isNaN(Date.parse(got.response.response.resolved_at))).toBe(false);
    expect("value" in got.response.response).toBe(false);

    const again = await cancel(id);
    expect([again.status, again.body]).toEqual([200, { id, status: "cancelled" }]);
    expect((await read(id)).response.resolution_id).toBe(got.response.resolution_id);
    expect(await db().resolution.count({ where: { messageId: id } })).toBe(1);
  });

  it("refuses another agent's cancel with a 404 identical to an unknown id's; the ask stays open (dp-002)", async () => {
    const id = await submit();
    for (const token of [acme.keys[B], other.keys[A]]) {
      const unknown = await raw(`/v1/messages/${UNKNOWN}/cancel`, token);
      const res = await raw(`/v1/messages/${id}/cancel`, token);
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.text).error.code).toBe("not_found");
      expect(res).toEqual(unknown);
      expect((await client(hub.url, token).get(`/v1/messages/${id}`)).status).toBe(404);
    }
    await expectStatus(id, "open");
    expect(await db().resolution.count({ where: { messageId: id } })).toBe(0);
    expect((await cancel(id)).status).toBe(200);
  });

  it("loses to an earlier terminal: 409 already_terminal with the existing outcome", async () => {
    const id = await submit();
    const answered = await client(hub.url, acme.tokens.alice).post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "hold",
    });
    expect(answered.status).toBe(200);
    const res = await cancel(id);
    expectError(res, 409, "already_terminal");
    expect(res.body).toMatchObject({ id, status: "answered", resolution: "answered" });
    const got = await read(id);
    expect(got.status).toBe("answered");
    expect(got.response.resolution_id).toBe(answered.body.resolution_id);
    expect(got.response.response).toMatchObject({ value: "hold", actor: "human:alice" });

    // and the other way round: a resolve after the cancel reads `cancelled`.
    const cancelled = await submit();
    expect((await cancel(cancelled)).status).toBe(200);
    const late = await client(hub.url, acme.tokens.alice).post(`/v1/messages/${cancelled}/resolve`, {
      resolution: "declined",
    });
    expectError(late, 409, "already_terminal");
    expect(late.body).toMatchObject({ id: cancelled, status: "cancelled", resolution: "cancelled" });
  });

  it("loses to expiry when it arrives strictly after expires_at (§7)", async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const id = await submit(envelope("ask", A, { expires_at: expiresAt }));
    // Strictly past expires_at by this box's clock, the Hub's.
    await waitFor(() => Date.now() > Date.parse(expiresAt), { every: 10, what: "the clock past expires_at" });
    const res = await cancel(id);
    expectError(res, 409, "already_terminal");
    expect(res.body).toMatchObject({ id, status: "expired", resolution: "expired" });
    expect((await read(id)).response.response.actor).toBe("system:expiry");
  });

  it("refuses a task and the submitter's own notify with 422 and leaves them unchanged", async () => {
    const task = await submit(envelope("task", A));
    const notify = await submit(envelope("notify", A));
    for (const [id, status] of [
      [task, "open"],
      [notify, "delivered"],
    ] as const) {
      expectError(await cancel(id), 422, "invalid_field");
      await expectStatus(id, status);
      expect(await db().resolution.count({ where: { messageId: id } })).toBe(0);
    }
  });

  it("takes no body: none, empty with application/json, or {} with and without a Content-Type", async () => {
    const variants: Array<[string | undefined, string | undefined]> = [
      [undefined, undefined],
      ["", "application/json"],
      ["{}", "application/json"],
      ["{}", undefined],
      ["{}", "text/plain"],
    ];
    for (const [body, type] of variants) {
      const id = await submit();
      const res = await raw(`/v1/messages/${id}/cancel`, acme.keys[A], body, type);
      expect([body, type, res.status, JSON.parse(res.text)]).toEqual([body, type, 200, { id, status: "cancelled" }]);
      await expectStatus(id, "cancelled");
    }
  });

  it("answers 401 to an operator token and to no credential", async () => {
    const id = await submit();
    for (const token of [acme.tokens.alice, undefined, "ma2h_key_nope"]) {
      expectError(await client(hub.url, token).post(`/v1/messages/${id}/cancel`), 401, "unauthenticated");
    }
    await expectStatus(id, "open");
  });
});

describe("push obligation (§3.1, §8.3)", () => {
  const deliveries = (messageId: string) => db().pushDelivery.findMany({ where: { messageId } });

  it("a cancelled push ask writes exactly one push_deliveries row for its resolution; a pull ask none", async () => {
    const push = await submit(pushAsk());
    expect(await deliveries(push)).toEqual([]);
    expect((await cancel(push)).status).toBe(200);
    expect((await cancel(push)).status).toBe(200); // a repeat cancel writes nothing more
    const rows = await deliveries(push);
    expect(rows.length).toBe(1);
    expect(rows[0]!.resolutionId).toBe((await read(push)).response.resolution_id);
    expect(rows[0]!.callbackUrl).toBe(PUSH_URL);

    const pull = await submit();
    expect((await cancel(pull)).status).toBe(200);
    expect(await deliveries(pull)).toEqual([]);
  });

  it("an answered push ask writes one obligation row; a losing cancel adds none", async () => {
    const id = await submit(pushAsk());
    const answered = await client(hub.url, acme.tokens.alice).post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "approve",
    });
    expect(answered.status).toBe(200);
    expectError(await cancel(id), 409, "already_terminal");
    const rows = await deliveries(id);
    expect(rows.map((r) => r.resolutionId)).toEqual([answered.body.resolution_id]);
  });
});
