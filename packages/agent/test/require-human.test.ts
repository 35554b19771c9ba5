/**
 * `requireHuman` against the Hub's real `/v1` handlers (served in-process): the mark
 * `"x-ma2h-human-only": true` is stored with the ask's request (GET /v1/messages/{id} returns it), a
 * person's answer passes with `byHuman`, and an answer by a non-person — here the asking agent
 * resolving its own ask, actor `agent:<id>` — is NotAnsweredByHumanError on wait(). The same through
 * the `ma2h` command line (`main`, the function the binary runs, in this process): `ask …
 * --require-human` exits 0 on a person's approval and 9, naming the actor, on an agent's.
 */
// covers: lib/standing-rules/apply.ts, packages/agent/src/answers.ts, packages/agent/src/messages.ts, packages/agent/src/cli/ask.ts, packages/agent/src/cli/waiting.ts
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GET as capabilityDocument } from "../../../app/well-known/ma2h/route";
import { client } from "../../../test/support/hub";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { Ma2hClient, NotAnsweredByHumanError } from "../src";
import { EXIT } from "../src/cli/exit-codes";
import { main } from "../src/cli/main";
import { waitFor } from "../../../test/support/wait";

const A = "deploybot/dev-team";
const hub = useHubFixture({
  server: "in-process",
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
});
const acme = hub.account("acme");

/** The in-process Hub serves `/v1` only: the §8.0 document comes from its own route export. */
const withDiscovery: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.pathname === "/.well-known/ma2h") return capabilityDocument(new Request(url));
  return fetch(input, init);
};
const sdk = () => new Ma2hClient({ url: hub.url, apiKey: acme.keys[A]!, agentId: A, fetch: withDiscovery });
const stored = async (id: string) => (await client(hub.url, acme.keys[A]).get(`/v1/messages/${id}`)).body;

describe("requireHuman (x-ma2h-human-only)", () => {
  it("is stored on the ask's request, and a person's answer passes with byHuman", async () => {
    const ask = await sdk().messages.ask.confirm({ title: "Deploy build 142?", requireHuman: true });
    expect((await stored(ask.id)).request).toMatchObject({ mode: "confirm", "x-ma2h-human-only": true });

    const plain = await sdk().messages.ask.confirm({ title: "Deploy build 143?" });
    expect((await stored(plain.id)).request).not.toHaveProperty("x-ma2h-human-only");

    const resolved = await client(hub.url, acme.tokens.alice).post(`/v1/messages/${ask.id}/resolve`, {
      resolution: "answered",
      value: "approve",
    });
    expect(resolved.status).toBe(200);
    const answer = await ask.wait({ timeoutMs: 20_000 });
    expect(answer).toMatchObject({ resolution: "answered", response: { actor: "human:alice", value: "approve" } });
    expect(answer.byHuman).toBe(true);
  });

  it("refuses an answer by a non-person on wait(), with the actor", async () => {
    const agent = sdk();
    const ask = await agent.messages.ask.confirm({ title: "Rotate the keys?", requireHuman: true });
    // The submitting agent may resolve its own ask (§8.8): the Hub attests it as agent:<id>.
    await agent.messages.resolve(ask.id, { resolution: "answered", value: "approve" });
    const refused = await ask.wait({ timeoutMs: 20_000 }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(NotAnsweredByHumanError);
    expect((refused as NotAnsweredByHumanError).actor).toBe(`agent:${A}`);
    expect((refused as NotAnsweredByHumanError).response.response?.value).toBe("approve");
    // Without requireHuman the same answer is returned, marked as not a person's.
    const read = await agent.messages.wait(ask.id, { timeoutMs: 20_000 });
    expect(read.byHuman).toBe(false);
  });
});

describe('with a standing rule on the Hub (docs/policies.md "Standing rules")', () => {
  it("a rule's answer comes back with byHuman false; requireHuman keeps the rule off the ask", async () => {
    const { answerAndRemember } = await import("../../../lib/standing-rules/store");
    const { db } = await import("../../../lib/db");
    const alice = await db().user.findUniqueOrThrow({ where: { email: "alice@acme.test" }, select: { id: true } });
    const first = await sdk().messages.ask.confirm({ title: "Deploy build 150?" });
    await answerAndRemember(alice.id, first.id, { value: "approve", duration: "2h" });

    const next = await sdk().messages.ask.confirm({ title: "Deploy build 151?" });
    const byRule = await next.wait({ timeoutMs: 20_000 });
    expect(byRule.response?.actor).toMatch(/^system:rule\/rule_/);
    expect(byRule.response?.comment).toBe("answered by a standing rule set by human:alice");
    expect(byRule.byHuman).toBe(false);

    const insisting = await sdk().messages.ask.confirm({ title: "Deploy build 152?", requireHuman: true });
    expect((await stored(insisting.id)).status).toBe("open");
    await db().standingRule.deleteMany({});
  });
});

describe("ma2h ask --require-human", () => {
  let stdout = "";
  let stderr = "";
  afterEach(() => vi.restoreAllMocks());

  /** Runs the command line in this process (the capability fetched as above), capturing its output. */
  function run(command: string[]): Promise<number> {
    vi.restoreAllMocks(); // a second run in one test: spy on the real fetch and streams again
    stdout = "";
    stderr = "";
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      return url.pathname === "/.well-known/ma2h" ? capabilityDocument(new Request(url)) : realFetch(input, init);
    });
    vi.spyOn(process.stdout, "write").mockImplementation((s) => {
      stdout += String(s);
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation((s) => {
      stderr += String(s);
      return true;
    });
    const store = mkdtempSync(join(tmpdir(), "ma2h-require-human-"));
    return main([...command, "--url", hub.url, "--agent-id", A, "--store", store, "--api-key", acme.keys[A]!]);
  }
  /** The command's own output: the in-process Hub logs JSON lines to the same streams. */
  const ours = (text: string) =>
    text
      .split(/(?<=\n)/u)
      .filter((line) => !line.startsWith('{"time":'))
      .join("");
  const askedId = () => waitFor(() => /asked (msg_\w+)/u.exec(stderr)?.[1], { what: "the ask's id on stderr" });

  it("exits 0 on a person's approval, with the mark on the stored request", async () => {
    const done = run(["ask", "confirm", "Ship it?", "--require-human"]);
    const id = await askedId();
    expect((await stored(id)).request).toMatchObject({ "x-ma2h-human-only": true });
    await client(hub.url, acme.tokens.alice).post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "approve",
    });
    expect(await done, stderr).toBe(EXIT.ok);
    expect(ours(stdout)).toBe("approve\n");
  });

  it("exits 9 with one stderr line naming the actor when a non-person answers, and so does ma2h wait", async () => {
    const done = run(["ask", "confirm", "Ship it now?", "--require-human"]);
    const id = await askedId();
    await sdk().messages.resolve(id, { resolution: "answered", value: "approve" });
    expect(await done, stderr).toBe(EXIT.notByHuman);
    expect(ours(stdout)).toBe("");
    const line = `ma2h: not_answered_by_human: ${id} was answered by agent:${A}, not by a person (--require-human)\n`;
    expect(stderr).toContain(line);
    // `ma2h wait` reads the mark from the stored request and exits the same way.
    expect(await run(["wait", id]), stderr).toBe(EXIT.notByHuman);
    expect(stderr).toContain(line);
  });

  it("is a usage error with --to: an agent answers an addressed ask", async () => {
    expect(await run(["ask", "confirm", "Done?", "--require-human", "--to", "agent:db-worker/fleet"])).toBe(EXIT.usage);
    expect(stderr).toContain("ma2h: usage_error: --require-human asks a person: not with --to");
  });
});
