/**
 * Tracing across processes, exported over OTLP/HTTP to a collector stand-in (a loopback server that
 * records what the exporter posts): with `OTEL_EXPORTER_OTLP_ENDPOINT` set on the web and the worker,
 * a push ask's trace — continued from the agent's `traceparent` — holds the web's `ma2h.submit`,
 * `ma2h.resolve` and `ma2h.human_wait` and the worker's `ma2h.push.attempt` (one per attempt, with
 * its outcome and status) and `ma2h.delivery`; nothing the exporter sent carries the title, body,
 * answer, `state`, the binding's secret or the API key.
 */
// covers: lib/telemetry/tracing.ts, lib/telemetry/spans.ts, lib/delivery/push-attempt.ts
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { addBinding } from "../lib/principals/bindings";
import { useHubFixture } from "./support/hub-fixture";
import { resolveAs, submitPush } from "./support/push-kit";
import type { Receiver } from "./support/receiver";
import { waitUntil } from "./support/wait";

const A = "otel/bot";
const SECRET = "CANARY-SECRET-binding-0d9e";
const CANARY = ["CANARY-TITLE-a1", "CANARY-BODY-b2", "CANARY-STATE-c3", "CANARY-ANSWER-d4", SECRET];

/** What the exporter posted, raw, and its spans flattened (OTLP/JSON: hex ids, nanosecond strings). */
const posted: string[] = [];
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
};
const collector = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => {
    body += c;
  });
  req.on("end", () => {
    if (req.url === "/v1/traces") posted.push(body);
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
});
await new Promise<void>((r) => collector.listen(0, "127.0.0.1", () => r()));
const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((r) => collector.close(() => r())));

function spans(): OtlpSpan[] {
  return posted.flatMap((p) => {
    const doc = JSON.parse(p) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    return doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  });
}
const attr = (s: OtlpSpan | undefined, key: string) => {
  const v = s?.attributes?.find((a) => a.key === key)?.value;
  return v ? String(Object.values(v)[0]) : undefined;
};

let rx: Receiver;
const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  receivers: 1,
  setup: async (h) => {
    rx = h.receiver;
    await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: rx.origin,
      secretRef: "cb",
      secret: SECRET,
    });
  },
  server: "pair",
  env: (h) => ({
    MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin,
    MA2H_PUSH_BASE_DELAY_MS: "200",
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_SERVICE_NAME: "hub-under-test",
  }),
});
const acme = hub.account("acme");

describe("traces over OTLP", () => {
  it("one push ask's trace holds the web's and the worker's spans, each attempt, and no content", async () => {
    const traceId = "5b8efff798038103d269b633813fc60c";
    const agentSpan = "eee19b7ec3c1b174";
    rx.script("/otel", [503]); // one retry: two attempts
    const sent = await submitPush(
      hub.web.url,
      acme.keys[A] as string,
      A,
      `${rx.origin}/otel`,
      {
        scheme: "hmac",
        secret_ref: "cb",
      },
      {
        name: "otel",
        over: { title: CANARY[0], body: CANARY[1], state: { s: CANARY[2] } },
        headers: { traceparent: `00-${traceId}-${agentSpan}-01` },
      },
    );
    await resolveAs(hub.web.url, acme.tokens.alice as string, sent.id, {
      resolution: "answered",
      value: "ship",
      comment: CANARY[3],
    });
    await rx.waitFor("/otel", 2, 30_000);

    const mine = await waitUntil(
      async () => spans().filter((s) => s.traceId === traceId),
      (ss) =>
        ["ma2h.submit", "ma2h.resolve", "ma2h.human_wait", "ma2h.delivery"].every((n) =>
          ss.some((s) => s.name === n),
        ) && ss.filter((s) => s.name === "ma2h.push.attempt").length === 2,
      { timeout: 30_000, every: 100 },
    );
    const submit = mine.find((s) => s.name === "ma2h.submit");
    expect(submit?.parentSpanId).toBe(agentSpan);
    const attempts = mine.filter((s) => s.name === "ma2h.push.attempt");
    expect(attempts.map((s) => [attr(s, "ma2h.push.attempt"), attr(s, "ma2h.push.outcome")]).sort()).toEqual([
      ["1", "retry"],
      ["2", "delivered"],
    ]);
    expect(attempts.map((s) => attr(s, "http.response.status_code")).sort()).toEqual(["200", "503"]);
    for (const s of mine.filter((s) => s.name !== "ma2h.submit")) expect(s.parentSpanId).toBe(submit?.spanId);
    expect(
      attr(
        mine.find((s) => s.name === "ma2h.delivery"),
        "ma2h.delivery.channel",
      ),
    ).toBe("push");
    expect(posted.join("\n")).toContain("hub-under-test");

    const all = posted.join("\n");
    for (const canary of [...CANARY, acme.keys[A] as string, acme.tokens.alice as string])
      expect(all).not.toContain(canary);
  });
});
