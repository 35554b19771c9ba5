/**
 * §9.6 telemetry minimisation, against the real stdout/stderr of `npm run hub` (web + worker) at
 * LOG_LEVEL=debug. First we prove the capture sees the Hub's own output; then
 * unique markers go into `state`, `x-ma2h-sensitive` values, the title/body/context of
 * `sensitive:true` messages and resolve comments — in accepted and rejected requests alike — and
 * none of them, nor any API key, PAT or AUTH_SECRET, may appear anywhere in what the Hub printed.
 */
// covers: lib/log.ts
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { client, startHub, TEST_AUTH_SECRET, type HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";

const A = "deploybot/dev-team";
const fx = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  server: "hub",
  env: { LOG_LEVEL: "debug", MA2H_MAX_BODY_BYTES: "4096" },
});
const acme = fx.account("acme");
let output = "";
const markers: Record<string, string> = {};
/** A fresh unguessable marker, remembered under `name`. */
const mark = (name: string) => (markers[name] = `MARK${randomBytes(8).toString("hex")}${name.replace(/\W/g, "")}`);

/**
 * Lines the Hub prints that are not JSON log lines, each listed deliberately. Embedded in
 * server/web.ts, Next prints no banner and no request log; it prints only this one line, when it
 * loads the TypeScript next.config.ts at `app.prepare()`.
 */
const KNOWN_NON_JSON: RegExp[] = [/^\s*✓ Running next\.config\.ts took \d+(\.\d+)?m?s$/];

async function until(pred: () => boolean, what: string, ms = 10_000, proc: HubProcess = fx.web): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${proc.output()}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

describe("Hub logs", () => {
  it("the capture sees the Hub's real stdout and stderr", async () => {
    await until(() => fx.web.output().includes('"msg":"web listening"'), "web listening (stdout)");
    await until(() => fx.web.output().includes('"msg":"worker running"'), "worker running (stdout)");
    expect(fx.web.output()).toContain("DEV MODE: serving plaintext HTTP"); // a warn line, on stderr
    expect(fx.web.output()).toContain('"msg":"migrations"');
    // Each process says at start which code it runs (bin/launcher.mjs): here, the fresh build's bundles.
    const running = fx.web
      .output()
      .split("\n")
      .filter((l) => l.includes('"msg":"running the compiled bundle"'))
      .map((l) => JSON.parse(l).entry)
      .sort();
    expect(running).toEqual(["hub", "web", "worker"]);
    const res = await client(fx.web.url, acme.keys[A]).get("/v1/messages/msg_00000000000000000000000000");
    expect(res.status).toBe(404);
    const requestId = res.headers.get("x-request-id") as string;
    expect(requestId).toBeTruthy();
    await until(() => fx.web.output().includes(requestId), `a request line with ${requestId}`);
    const line = fx.web
      .output()
      .split("\n")
      .find((l) => l.includes(requestId)) as string;
    expect(JSON.parse(line)).toMatchObject({
      level: "info",
      msg: "request",
      request_id: requestId,
      method: "GET",
      status: 404,
      code: "not_found",
    });
  });

  it("never prints state, sensitive values, sensitive content, comments or credentials", async () => {
    const agent = client(fx.web.url, acme.keys[A]);
    const alice = client(fx.web.url, acme.tokens.alice);
    const statuses: number[] = [];
    const send = async (p: Promise<{ status: number }>, expected: number) => {
      const res = await p;
      statuses.push(res.status);
      expect(res.status).toBe(expected);
      return res as Awaited<typeof p> & { body: Record<string, unknown> };
    };

    // state: accepted, schema-invalid (400), idempotency conflict (409), semantic (422), too big (422).
    const accepted = envelope("ask", A, { state: { note: mark("state-ok") }, body: mark("plain-body") });
    await send(agent.post("/v1/messages", accepted), 202);
    await send(
      agent.post("/v1/messages", envelope("notify", A, { title: undefined, state: { s: mark("state-400") } })),
      400,
    );
    await send(agent.post("/v1/messages", accepted), 202); // an identical replay
    await send(agent.post("/v1/messages", { ...accepted, state: { note: mark("state-409") } }), 409); // state is in the payload
    const past = new Date(Date.now() - 60_000).toISOString();
    await send(
      agent.post("/v1/messages", envelope("ask", A, { expires_at: past, state: { s: mark("state-422") } })),
      422,
    );
    await send(
      agent.post("/v1/messages", envelope("notify", A, { body: "x".repeat(5000), state: { s: mark("state-big") } })),
      422,
    );
    await send(agent.post("/v1/messages", `{"state":"${mark("bad-json")}"`), 400);

    // x-ma2h-sensitive values: in the default, in an accepted resolve, in rejected resolves.
    const schema = {
      type: "object",
      properties: { password: { type: "string", "x-ma2h-sensitive": true }, note: { type: "string" } },
      required: ["password"],
      additionalProperties: false,
    };
    const input = (over: Record<string, unknown> = {}) =>
      agent.post("/v1/messages", envelope("ask", A, { request: { mode: "input", schema, ...over } }));
    const asked = await send(input({ default_on_expire: { password: mark("default") } }), 202);
    const id = asked.body.id as string;
    await send(
      alice.post(`/v1/messages/${id}/resolve`, {
        resolution: "answered",
        value: { password: mark("rejected-422"), bogus: "x" },
      }),
      422,
    );
    await send(
      alice.post(`/v1/messages/${id}/resolve`, {
        resolution: "answered",
        value: { password: mark("resolved") },
        comment: mark("comment"),
      }),
      200,
    );
    await send(
      alice.post(`/v1/messages/${id}/resolve`, {
        resolution: "answered",
        value: { password: mark("rejected-409") },
        comment: mark("comment-409"),
      }),
      409,
    );
    await send(
      agent.post(`/v1/messages/${id}/resolve`, { resolution: "declined", comment: mark("comment-agent") }),
      409,
    );
    await send(
      agent.post(
        "/v1/messages",
        envelope("ask", A, {
          request: { mode: "input", schema, default_on_expire: { password: 7, x: mark("default-422") } },
        }),
      ),
      422,
    );
    await send(agent.get(`/v1/messages/${id}`), 200);

    // sensitive:true content, accepted and rejected, then read back and resolved with a comment.
    const sensitive = (n: number, over: Record<string, unknown> = {}) =>
      envelope("ask", A, {
        sensitive: true,
        title: mark(`title${n}`),
        body: mark(`body${n}`),
        context: [
          { kind: "text", text: mark(`ctx${n}`) },
          { kind: "data", data: { k: mark(`data${n}`) } },
        ],
        ...over,
      });
    const s = await send(agent.post("/v1/messages", sensitive(1)), 202);
    await send(agent.post("/v1/messages", sensitive(2, { expires_at: past })), 422);
    await send(
      agent.post(
        "/v1/messages",
        sensitive(3, { type: "notify", request: undefined, idempotency_key: undefined, priority: "nope" }),
      ),
      400,
    );
    await send(agent.get(`/v1/messages/${s.body.id}?wait=1`), 200);
    await send(
      alice.post(`/v1/messages/${s.body.id}/resolve`, {
        resolution: "answered",
        value: "ship",
        comment: mark("sensitive-comment"),
      }),
      200,
    );
    await send(agent.post(`/v1/messages/${s.body.id}/cancel`), 409);

    // Credentials that are not ours are not echoed either.
    await send(client(fx.web.url, `ma2h_key_${mark("bad-key")}`).get(`/v1/messages/${id}`), 401);
    await send(
      client(fx.web.url, `ma2h_pat_${mark("bad-pat")}`).post(`/v1/messages/${id}/resolve`, { resolution: "declined" }),
      401,
    );

    await until(
      () => (fx.web.output().match(/"msg":"request"/g)?.length ?? 0) >= statuses.length + 1,
      "a request line per request",
    );
    const stopMs = await fx.web.stop();
    expect(stopMs).toBeLessThan(10_000);
    output = fx.web.output();

    const secrets: Record<string, string> = { ...markers, AUTH_SECRET: TEST_AUTH_SECRET };
    for (const [handle, token] of Object.entries(acme.tokens)) secrets[`pat:${handle}`] = token;
    for (const [agentId, key] of Object.entries(acme.keys)) secrets[`key:${agentId}`] = key;
    for (const [name, value] of Object.entries({ ...secrets })) {
      // The random part of each credential alone, too (a prefix-stripped echo is still a leak).
      if (name.startsWith("pat:") || name.startsWith("key:")) secrets[`${name}(tail)`] = value.slice(-20);
    }
    const leaked = Object.entries(secrets)
      .filter(([, v]) => output.includes(v))
      .map(([k]) => k);
    expect(leaked).toEqual([]);

    // …while the request lines are all there, with their statuses.
    const requests = output
      .split("\n")
      .filter((l) => l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l));
    const logged = requests.map((r) => r.status as number);
    for (const st of new Set(statuses)) {
      expect([st, logged.filter((x) => x === st).length >= statuses.filter((x) => x === st).length]).toEqual([
        st,
        true,
      ]);
    }
    expect(requests.every((r) => typeof r.request_id === "string" && r.request_id.length > 0)).toBe(true);
  });

  it("every line is a JSON object with level and time (known non-JSON lines listed)", () => {
    expect(output).not.toBe("");
    expect(nonJsonLines(output)).toEqual([]);
  });

  it("a queue store it cannot reach is logged as JSON by name and code, never dumped raw", async () => {
    const worker = await startHub({
      databaseUrl: fx.databaseUrl,
      mode: "worker",
      env: { REDIS_URL: "redis://127.0.0.1:1", LOG_LEVEL: "debug" },
    });
    try {
      await until(
        () => worker.output().includes('"msg":"queue store error"'),
        "a queue store error line",
        20_000,
        worker,
      );
    } finally {
      await worker.stop();
    }
    const line = worker
      .output()
      .split("\n")
      .find((l) => l.includes('"msg":"queue store error"')) as string;
    expect(JSON.parse(line)).toMatchObject({ level: "warn", role: "worker", error_code: "ECONNREFUSED" });
    expect(nonJsonLines(worker.output())).toEqual([]);
  });
});

/** The lines of `text` that are neither a `{level, time, …}` JSON object nor a known exception. */
function nonJsonLines(text: string): string[] {
  const bad: string[] = [];
  for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
    if (KNOWN_NON_JSON.some((re) => re.test(line))) continue;
    try {
      const rec = JSON.parse(line) as { level?: unknown; time?: unknown } | null;
      const ok =
        typeof rec === "object" &&
        rec !== null &&
        ["debug", "info", "warn", "error"].includes(rec.level as string) &&
        !Number.isNaN(Date.parse(String(rec.time)));
      if (!ok) bad.push(line);
    } catch {
      bad.push(line);
    }
  }
  return bad;
}
