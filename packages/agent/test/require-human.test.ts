/**
 * `requireHuman` against the Hub's real `/v1` handlers (served in-process): the mark
 * `"x-ma2h-human-only": true` is stored with the ask's request (GET /v1/messages/{id} returns it), a
 * person's answer passes with `byHuman`, and an answer by a non-person — here the asking agent
 * resolving its own ask, actor `agent:<id>` — is NotAnsweredByHumanError on wait().
 */
// covers: packages/agent/src/answers.ts, packages/agent/src/messages.ts
import { describe, expect, it } from "vitest";
import { GET as capabilityDocument } from "../../../app/well-known/ma2h/route";
import { client } from "../../../test/support/hub";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { Ma2hClient, NotAnsweredByHumanError } from "../src";

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
