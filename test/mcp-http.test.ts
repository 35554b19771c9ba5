/**
 * The Hub's MCP endpoint (`/mcp`, Streamable HTTP, stateless) against two real web processes, with
 * the MCP SDK's own client: initialize and tools/list (the five tools of `ma2h mcp`, ask_human
 * task-capable); ask_human as a durable task that a person resolves with a PAT — the task is
 * `working`, then `completed` with the verified answer, and its id is the message id; it outlives
 * the web process that created it; a client
 * without tasks gets the wait-then-id outcome within `max_wait_seconds` and check_answer later;
 * tasks/cancel is a §8.4 cancel; read_directives verifies, labels and acks in one call; a bad key
 * is `401`; one client's calls alternate between the two processes; the parked-request cap answers
 * as docs/mcp.md says; the API key appears in no answer.
 */
// covers: lib/mcp/, lib/http/routes/mcp.ts, lib/http/routes/index.ts, app/mcp/route.ts, packages/protocol/src/mcp-tools.ts, packages/protocol/src/mcp-outcome.ts
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { client, startHub } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { waitFor } from "./support/wait";

const A = "remotebot/dev";
const B = "capbot/dev";
const MAX_WAIT_S = 3;
const ENV = { MA2H_MAX_WAIT_SECONDS: String(MAX_WAIT_S), MA2H_MAX_PARKED_PER_AGENT: "1" };
const hub = useHubFixture({
  accounts: { acme: { agents: [A, B], humans: [{ handle: "alice", role: "owner" }] } },
  count: 2,
  env: ENV,
});
const acme = hub.account("acme");
const alice = () => client(hub.url, acme.tokens.alice);

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};
const text = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("\n");

/** Every answer body any web process sent, to look for the key in. */
const seen: string[] = [];
/** Which web process answered each POST, in order. */
const servedBy: string[] = [];
const open: Client[] = [];
afterAll(async () => {
  await Promise.all(open.map((c) => c.close().catch(() => {})));
});

/**
 * An SDK client over Streamable HTTP with the agent's key as a bearer token. `alternate` sends each
 * request to the next web process in turn (a load balancer's round robin).
 */
async function connect(agent = A, opts: { alternate?: boolean; key?: string; via?: string } = {}): Promise<Client> {
  let turn = 0;
  const fetchVia: typeof fetch = async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const web = opts.via ? { url: opts.via } : opts.alternate ? hub.webs[turn++ % hub.webs.length] : hub.webs[0];
    const target = new URL(url.pathname + url.search, web?.url);
    const res = await fetch(target, init);
    if ((init?.method ?? "GET") === "POST") servedBy.push(String(web?.url));
    const body = await res.clone().text();
    seen.push(body, JSON.stringify([...res.headers]));
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", hub.url), {
    requestInit: { headers: { authorization: `Bearer ${opts.key ?? acme.keys[agent]}` } },
    fetch: fetchVia,
  });
  const mcp = new Client({ name: "mcp-http-test", version: "0.0.0" });
  await mcp.connect(transport);
  open.push(mcp);
  return mcp;
}

const resolveAs = (id: string, body: Record<string, unknown>) => alice().post(`/v1/messages/${id}/resolve`, body);

describe("/mcp: Streamable HTTP, stateless", () => {
  it("initializes without a session id and lists the five tools; ask_human takes tasks", async () => {
    const mcp = await connect();
    expect(mcp.getServerVersion()).toMatchObject({ name: "ma2h" });
    expect(mcp.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } }, cancel: {} });
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "ask_human",
      "cancel_ask",
      "check_answer",
      "notify_human",
      "read_directives",
    ]);
    const ask = tools.find((t) => t.name === "ask_human");
    expect(ask?.execution?.taskSupport).toBe("optional");
    // The Hub's waits: at most max_wait_seconds, stated to the model.
    expect(ask?.description).toContain(`max ${MAX_WAIT_S})`);
    const props = (ask?.inputSchema.properties ?? {}) as Record<string, { maximum?: number }>;
    expect(props.wait_seconds?.maximum).toBe(MAX_WAIT_S);
    // No Mcp-Session-Id, ever.
    const raw = await fetch(`${hub.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${acme.keys[A]}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get("mcp-session-id")).toBeNull();
    expect((await raw.json()).result.tools).toHaveLength(5);
    // GET (a server-sent event stream) is not offered.
    const get = await fetch(`${hub.url}/mcp`, { headers: { authorization: `Bearer ${acme.keys[A]}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("OPTIONS, POST");
  });

  it("a bad or missing key is 401, and no OAuth discovery document is published", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const bad = await fetch(`${hub.url}/mcp`, {
      method: "POST",
      headers: { ...headers, authorization: "Bearer ma2h_sk_not_a_key" },
      body,
    });
    expect(bad.status).toBe(401);
    expect((await bad.json()).error.code).toBe("unauthenticated");
    expect((await fetch(`${hub.url}/mcp`, { method: "POST", headers, body })).status).toBe(401);
    // A person's token is no agent key.
    const pat = await fetch(`${hub.url}/mcp`, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${acme.tokens.alice}` },
      body,
    });
    expect(pat.status).toBe(401);
    await expect(connect(A, { key: "ma2h_sk_wrong" })).rejects.toThrow(/unauthenticated/);
    expect((await fetch(`${hub.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
  });
});

describe("/mcp: ask_human as a task", () => {
  it("is working while open, then completed with the person's verified answer; the task id is the message id", async () => {
    const mcp = await connect(A, { alternate: true });
    await mcp.listTools(); // the client learns ask_human takes tasks
    const title = "Rotate the production database password?";
    const stream = mcp.experimental.tasks.callToolStream({
      name: "ask_human",
      arguments: { mode: "confirm", title, body: "Scheduled maintenance." },
    });
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: "taskCreated", task: { status: "working" } });
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    const row = await db().message.findUniqueOrThrow({ where: { id: taskId }, select: { title: true, status: true } });
    expect(row).toEqual({ title, status: "open" });

    const status = await mcp.experimental.tasks.getTask(taskId);
    expect(status).toMatchObject({ taskId, status: "working", statusMessage: "waiting for a person at the Hub" });
    expect((await mcp.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);

    expect((await resolveAs(taskId, { resolution: "answered", value: "approve", comment: "after 6pm" })).status).toBe(
      200,
    );
    let result: ToolResult | undefined;
    for await (const m of stream) {
      if (m.type === "result") result = m.result as ToolResult;
      if (m.type === "error") throw m.error;
    }
    expect(result?.isError).toBeFalsy();
    expect(result?.structuredContent).toMatchObject({
      id: taskId,
      answered: true,
      by_human: true,
      resolution: "answered",
      value: "approve",
      actor: "human:alice",
      comment: "after 6pm",
    });
    expect(text(result as ToolResult)).toContain("answered: approve");
    expect(await mcp.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: "completed" });
    // The answer reached the agent: a pull delivery (§14.2).
    const body = (await client(hub.url, acme.keys[A]).get(`/v1/messages/${taskId}`)).body;
    expect(body.delivery).toBeDefined();
    // Both processes served this client's calls, alternately.
    const mine = servedBy.slice(-6);
    expect(new Set(mine).size).toBe(2);
  });

  it("survives across processes and reads a decline as a completed result that says so", async () => {
    const one = await connect(A);
    await one.listTools();
    const stream = one.experimental.tasks.callToolStream({
      name: "ask_human",
      arguments: { mode: "confirm", title: "Drop the staging cache?" },
    });
    const created = (await stream.next()).value as { task: { taskId: string } };
    await stream.return(undefined);
    // Another client, another process, no shared memory: the task is found in the database.
    const other = await connect(A, { alternate: true });
    expect(await other.experimental.tasks.getTask(created.task.taskId)).toMatchObject({ status: "working" });
    // tasks/result asked while the question is open holds until a person resolves it.
    const held = other.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    await new Promise((r) => setTimeout(r, 500));
    expect((await resolveAs(created.task.taskId, { resolution: "declined", comment: "not now" })).status).toBe(200);
    const result = (await held) as ToolResult;
    expect(await other.experimental.tasks.getTask(created.task.taskId)).toMatchObject({ status: "completed" });
    expect(result.structuredContent).toMatchObject({ resolution: "declined", answered: false });
    expect(text(result)).toContain("declined");
  });

  it("outlives the web process that created it: asked through one that then stops, answered through another", async () => {
    const third = await startHub({ databaseUrl: hub.databaseUrl, env: ENV });
    let taskId: string;
    try {
      const mcp = await connect(A, { via: third.url });
      await mcp.listTools();
      const stream = mcp.experimental.tasks.callToolStream({
        name: "ask_human",
        arguments: { mode: "confirm", title: "Promote the canary?" },
      });
      taskId = ((await stream.next()).value as { task: { taskId: string } }).task.taskId;
      await stream.return(undefined);
      await mcp.close();
    } finally {
      await third.stop();
    }
    const other = await connect(A);
    expect(await other.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: "working" });
    expect((await resolveAs(taskId, { resolution: "answered", value: "approve" })).status).toBe(200);
    const result = (await other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as ToolResult;
    expect(result.structuredContent).toMatchObject({ id: taskId, answered: true, value: "approve" });
  });

  it("tasks/cancel is a §8.4 cancel of the ask; another agent's message is no task of this one", async () => {
    const mcp = await connect(A);
    await mcp.listTools();
    const stream = mcp.experimental.tasks.callToolStream({
      name: "ask_human",
      arguments: { mode: "confirm", title: "Restart the queue workers?" },
    });
    const { task } = (await stream.next()).value as { task: { taskId: string } };
    await stream.return(undefined);
    const other = await connect(B);
    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
    const cancelled = await mcp.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "completed" });
    const row = await db().message.findUniqueOrThrow({ where: { id: task.taskId }, select: { status: true } });
    expect(row.status).toBe("cancelled");
    const result = (await mcp.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as ToolResult;
    expect(result.structuredContent).toMatchObject({ resolution: "cancelled" });
    expect(text(result)).toContain("cancelled");
  });
});

describe("/mcp: clients without tasks", () => {
  it("ask_human waits at most max_wait_seconds, then returns the id; check_answer later returns the answer", async () => {
    const mcp = await connect(A, { alternate: true });
    const started = Date.now();
    const r = (await mcp.callTool({
      name: "ask_human",
      arguments: { mode: "select", title: "Which region first?", options: [{ value: "eu" }, { value: "us" }] },
    })) as ToolResult;
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual((MAX_WAIT_S - 0.5) * 1000);
    expect(took).toBeLessThan((MAX_WAIT_S + 5) * 1000);
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ answered: false, status: "open" });
    expect(text(r)).toMatch(/not answered yet after waiting 3 s.*check_answer/s);
    const id = String(r.structuredContent?.id);
    expect((await resolveAs(id, { resolution: "answered", value: "eu" })).status).toBe(200);
    const later = (await mcp.callTool({ name: "check_answer", arguments: { id } })) as ToolResult;
    expect(later.structuredContent).toMatchObject({ id, answered: true, value: "eu", actor: "human:alice" });
    // A question the Hub refuses is a tool error with its §8.5 code, with or without a task.
    const bad = { mode: "confirm", title: "Bad default", expires_in_seconds: 60, default_on_expire: "maybe" };
    const refused = (await mcp.callTool({ name: "ask_human", arguments: bad })) as ToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^MA2H error invalid_field \(HTTP 422\)/);
    // As a task request no task is created: a JSON-RPC error naming the code.
    await expect(mcp.callTool({ name: "ask_human", arguments: bad, task: { ttl: 60_000 } })).rejects.toThrow(
      /-32602.*MA2H error invalid_field \(HTTP 422\)/s,
    );
    expect(await db().message.count({ where: { title: "Bad default" } })).toBe(0);
    // A wait past the Hub's maximum is refused by the schema, before anything is asked.
    const tooLong = (await mcp.callTool({
      name: "ask_human",
      arguments: { mode: "confirm", title: "Never asked", wait_seconds: MAX_WAIT_S + 1 },
    })) as ToolResult;
    expect(tooLong.isError).toBe(true);
    expect(text(tooLong)).toMatch(/^MA2H error validation_error/);
    expect(await db().message.count({ where: { title: "Never asked" } })).toBe(0);
  });

  it("notify_human, cancel_ask, and a Hub refusal as a tool error with its §8.5 code", async () => {
    const mcp = await connect(A);
    const n = (await mcp.callTool({
      name: "notify_human",
      arguments: { title: "Nightly build is green" },
    })) as ToolResult;
    expect(n.isError).toBeFalsy();
    expect(await db().message.count({ where: { id: String(n.structuredContent?.id), type: "notify" } })).toBe(1);
    const missing = (await mcp.callTool({ name: "cancel_ask", arguments: { id: "msg_nope" } })) as ToolResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^MA2H error not_found \(HTTP 404\)/);
  });

  it("the parked cap: over it, ask_human still asks and returns the id at once, saying the Hub did not wait", async () => {
    const mcp = await connect(B);
    const holding = mcp.callTool({ name: "ask_human", arguments: { mode: "confirm", title: "First of two" } });
    await waitFor(() => db().message.findFirst({ where: { title: "First of two" } }), { what: "the first ask" });
    await new Promise((r) => setTimeout(r, 300)); // it parks on its long-poll
    const started = Date.now();
    const second = (await mcp.callTool({
      name: "ask_human",
      arguments: { mode: "confirm", title: "Second of two" },
    })) as ToolResult;
    expect(Date.now() - started).toBeLessThan(MAX_WAIT_S * 1000);
    expect(second.isError).toBeFalsy();
    expect(second.structuredContent).toMatchObject({ answered: false, status: "open" });
    expect(text(second)).toMatch(/did not wait for the answer: .*max_parked_per_agent.* \(rate_limited\)/);
    expect(await db().message.count({ where: { id: String(second.structuredContent?.id) } })).toBe(1);
    expect(((await holding) as ToolResult).structuredContent).toMatchObject({ answered: false });
    // A check_answer that would park over the cap is the rate_limited tool error.
    const parkedAgain = mcp.callTool({
      name: "check_answer",
      arguments: { id: String(second.structuredContent?.id), wait_seconds: MAX_WAIT_S },
    });
    await new Promise((r) => setTimeout(r, 300));
    const refused = (await mcp.callTool({
      name: "read_directives",
      arguments: { wait_seconds: MAX_WAIT_S },
    })) as ToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^MA2H error rate_limited \(HTTP 429\)/);
    await parkedAgain;
  });
});

describe("/mcp: read_directives (§13.4)", () => {
  it("drains, verifies and acks in one call, labelled as a person's untrusted text", async () => {
    const mcp = await connect(A, { alternate: true });
    const res = await alice().post("/v1/directives", {
      to: `agent:${A}`,
      title: "Freeze deploys",
      body: "Until Monday.",
    });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    const r = (await mcp.callTool({ name: "read_directives", arguments: { wait_seconds: MAX_WAIT_S } })) as ToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      rejected: 0,
      directives: [{ id, from: "human:alice", title: "Freeze deploys", body: "Until Monday." }],
    });
    expect(text(r)).toMatch(/signature verified\). These are instructions from a person; their content is untrusted/);
    expect((await alice().get(`/v1/directives/${id}`)).body.status).toBe("acknowledged");
    const again = (await mcp.callTool({ name: "read_directives", arguments: {} })) as ToolResult;
    expect(again.structuredContent).toMatchObject({ directives: [] });
  });
});

describe("/mcp: secrets", () => {
  it("the API key appears in no answer of any call above", () => {
    expect(seen.length).toBeGreaterThan(20);
    for (const key of Object.values(acme.keys)) for (const body of seen) expect(body).not.toContain(key);
  });
});
