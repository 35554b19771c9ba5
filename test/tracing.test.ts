/**
 * OpenTelemetry traces (lib/telemetry) with an in-memory exporter, over the /v1 API served in this
 * process: a submit continues the agent's `traceparent` (same trace id, the agent's span as parent);
 * the answer's `ma2h.resolve` and `ma2h.human_wait` (submit → terminal, with the resolution and the
 * actor's kind) join that trace, as do an expiry's and a cancel's; no span name or attribute carries
 * a title, body, answer, `state` or credential (canaries); and with tracing off nothing is recorded
 * and no trace row is written.
 */
// covers: lib/telemetry/tracing.ts, lib/telemetry/spans.ts, lib/http/routes/submit.ts, lib/messages/after-terminal.ts
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { flushTraces, useSpanExporter } from "../lib/telemetry/tracing";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { waitUntil } from "./support/wait";

const A = "traced/bot";
const hub = useHubFixture({
  server: "in-process",
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
});
const acme = hub.account("acme");
const exporter = new InMemorySpanExporter();
afterAll(() => useSpanExporter(null));

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const AGENT_SPAN = "00f067aa0ba902b7";
const CANARY = {
  title: "CANARY-TITLE-7f3a",
  body: "CANARY-BODY-91c2",
  answer: "CANARY-ANSWER-55de",
  state: "CANARY-STATE-e0b1",
};

const agent = () => client(hub.url, acme.keys[A]);
const person = () => client(hub.url, acme.tokens.alice);

function canaryAsk(over: Record<string, unknown> = {}) {
  return envelope("ask", A, {
    title: CANARY.title,
    body: CANARY.body,
    state: { note: CANARY.state },
    ...over,
  });
}

async function spansOf(traceId: string, names: string[]): Promise<ReadableSpan[]> {
  return waitUntil(
    async () => {
      await flushTraces();
      return exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    },
    (spans) => names.every((n) => spans.some((s) => s.name === n)),
    { timeout: 10_000, every: 50 },
  );
}

/** Everything a span exports that could carry content: name, attributes, events, links, resource. */
const exported = (spans: ReadableSpan[]) =>
  JSON.stringify(
    spans.map((s) => ({
      name: s.name,
      attributes: s.attributes,
      events: s.events,
      links: s.links,
      resource: s.resource.attributes,
    })),
  );

describe("traces", () => {
  it("a submit continues the agent's trace; the answer's resolve and the human wait join it, without content", async () => {
    await useSpanExporter(exporter);
    const submitted = await agent().post("/v1/messages", canaryAsk(), {
      traceparent: `00-${TRACE_ID}-${AGENT_SPAN}-01`,
    });
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    await new Promise((r) => setTimeout(r, 30)); // a measurable wait
    const answered = await person().post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "ship",
      comment: CANARY.answer,
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);

    const spans = await spansOf(TRACE_ID, ["ma2h.submit", "ma2h.resolve", "ma2h.human_wait"]);
    const submit = spans.find((s) => s.name === "ma2h.submit") as ReadableSpan;
    expect(submit.parentSpanContext?.spanId).toBe(AGENT_SPAN);
    expect(submit.attributes).toMatchObject({
      "ma2h.message.id": id,
      "ma2h.message.type": "ask",
      "ma2h.replayed": false,
      "http.response.status_code": 202,
    });
    const wait = spans.find((s) => s.name === "ma2h.human_wait") as ReadableSpan;
    expect(wait.parentSpanContext?.spanId).toBe(submit.spanContext().spanId);
    expect(wait.attributes).toEqual({
      "ma2h.message.id": id,
      "ma2h.resolution": "answered",
      "ma2h.actor.kind": "human",
      "ma2h.defaulted": false,
    });
    const row = await db().message.findUniqueOrThrow({ where: { id }, include: { resolution: true } });
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(ms(wait.startTime)).toBe(row.createdAt.getTime());
    expect(ms(wait.endTime)).toBe(row.resolution?.resolvedAt.getTime());
    expect(ms(wait.endTime) - ms(wait.startTime)).toBeGreaterThanOrEqual(30);
    const resolve = spans.find((s) => s.name === "ma2h.resolve") as ReadableSpan;
    expect(resolve.parentSpanContext?.spanId).toBe(submit.spanContext().spanId);
    expect(resolve.attributes).toMatchObject({ "ma2h.resolution": "answered" });

    // The pull that reads the answer is its delivery.
    expect((await agent().get(`/v1/messages/${id}`)).body.status).toBe("answered");
    const delivered = await spansOf(TRACE_ID, ["ma2h.delivery"]);
    expect(delivered.find((s) => s.name === "ma2h.delivery")?.attributes).toMatchObject({
      "ma2h.delivery.channel": "pull",
    });

    const text = exported(await spansOf(TRACE_ID, ["ma2h.delivery"]));
    for (const canary of [...Object.values(CANARY), acme.keys[A] as string, acme.tokens.alice as string])
      expect(text).not.toContain(canary);
  });

  it("a cancel and a refused submit are in their traces too; a submit without traceparent starts one", async () => {
    await useSpanExporter(exporter);
    const mine = "0af7651916cd43dd8448eb211c80319c";
    const ask = await agent().post("/v1/messages", canaryAsk(), { traceparent: `00-${mine}-b7ad6b7169203331-01` });
    expect((await agent().post(`/v1/messages/${ask.body.id}/cancel`)).status).toBe(200);
    const spans = await spansOf(mine, ["ma2h.submit", "ma2h.human_wait"]);
    expect(spans.find((s) => s.name === "ma2h.human_wait")?.attributes).toMatchObject({
      "ma2h.resolution": "cancelled",
      "ma2h.actor.kind": "agent",
    });

    const bad = "11111111111111111111111111111111";
    const refused = await agent().post(
      "/v1/messages",
      { ...canaryAsk(), type: "nope" },
      {
        traceparent: `00-${bad}-2222222222222222-01`,
      },
    );
    expect(refused.status).toBe(400);
    const [failed] = await spansOf(bad, ["ma2h.submit"]);
    expect(failed?.status.code).toBe(2); // ERROR
    expect(failed?.attributes["ma2h.error.code"]).toBe(refused.body.error.code);

    const fresh = await agent().post("/v1/messages", canaryAsk());
    const root = exporter
      .getFinishedSpans()
      .find((s) => s.name === "ma2h.submit" && s.attributes["ma2h.message.id"] === fresh.body.id);
    expect(root?.parentSpanContext).toBeUndefined();
    expect(await db().messageTrace.count({ where: { messageId: fresh.body.id } })).toBe(1);
  });

  it("off: no spans, no trace rows", async () => {
    await useSpanExporter(null);
    exporter.reset();
    const res = await agent().post("/v1/messages", canaryAsk(), { traceparent: `00-${TRACE_ID}-${AGENT_SPAN}-01` });
    expect(res.status).toBe(202);
    await person().post(`/v1/messages/${res.body.id}/resolve`, { resolution: "answered", value: "ship" });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(await db().messageTrace.count({ where: { messageId: res.body.id } })).toBe(0);
  });
});
