/** §9.1 against real PostgreSQL: bearer credentials resolve to principals. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../test/support/database";
import { closeDb, db } from "../db";
import { resetEnvCache } from "../env";
import { hashCredential } from "../secrets";
import { createAccount } from "./accounts";
import { createAgent } from "./agents";
import { revokeKey, rotateKey } from "./api-keys";
import { authenticate, requireAgent } from "./authenticate";
import { seatFor } from "./seats";
import { createToken, revokeToken } from "./tokens";
import { addUser } from "./users";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let agent: Awaited<ReturnType<typeof createAgent>>;

const bearer = (token: string) => new Headers({ authorization: `Bearer ${token}` });
const unauthenticated = expect.objectContaining({ code: "unauthenticated", status: 401 });

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  process.env.AUTH_SECRET = "authenticate-test-secret-0123456789abcdef";
  resetEnvCache();
  await createAccount("acme");
  agent = await createAgent("deploybot/dev-team", "acme", { actor: "system:test" });
});

afterAll(async () => {
  await closeDb();
  await database?.drop();
});

describe("agent API keys", () => {
  it("resolves a valid key to its agent principal (Bearer and X-API-Key)", async () => {
    const expected = {
      kind: "agent",
      agentRowId: agent.agent.id,
      agentId: "deploybot/dev-team",
      accountId: agent.agent.accountId,
      keyId: agent.key.id,
    };
    expect(await authenticate(bearer(agent.api_key))).toEqual(expected);
    expect(await authenticate(new Headers({ "x-api-key": agent.api_key }))).toEqual(expected);
    expect(await authenticate(new Headers({ authorization: `bearer   ${agent.api_key}` }))).toEqual(expected);
  });

  it("stores only the hash and records last use", async () => {
    const row = await db().apiKey.findUniqueOrThrow({ where: { id: agent.key.id } });
    expect(row.keyHash).toBe(hashCredential(agent.api_key));
    await expect
      .poll(async () => (await db().apiKey.findUniqueOrThrow({ where: { id: agent.key.id } })).lastUsedAt)
      .not.toBeNull();
  });

  it("keeps the old key valid after rotation until it is revoked", async () => {
    const rotated = await rotateKey({ agentId: "deploybot/dev-team" });
    expect((await authenticate(bearer(rotated.api_key))).kind).toBe("agent");
    expect((await authenticate(bearer(agent.api_key))).kind).toBe("agent");
    await revokeKey(agent.key.id);
    await expect(authenticate(bearer(agent.api_key))).rejects.toThrow(unauthenticated);
    expect(requireAgent(await authenticate(bearer(rotated.api_key))).keyId).toBe(rotated.key.id);
  });

  it.each([
    ["no header", new Headers()],
    ["garbage bearer", bearer("garbage")],
    ["unknown but well-formed key", bearer(`ma2h_key_${"A".repeat(43)}`)],
    ["unknown but well-formed PAT", bearer(`ma2h_pat_${"A".repeat(43)}`)],
    ["Basic scheme", new Headers({ authorization: "Basic dXNlcjpwYXNz" })],
    ["empty X-API-Key", new Headers({ "x-api-key": "  " })],
  ])("rejects %s with 401", async (_, headers) => {
    await expect(authenticate(headers)).rejects.toThrow(unauthenticated);
  });
});

describe("operator personal access tokens", () => {
  it("resolves a PAT to an operator, never to an agent, and honours revocation", async () => {
    const added = await addUser("Ops@Example.com", "acme", "ops", "admin");
    const { token, id } = await createToken("ops@example.com");
    expect(token).toMatch(/^ma2h_pat_[A-Za-z0-9_-]{43}$/);
    const principal = await authenticate(bearer(token));
    expect(principal).toEqual({ kind: "operator", userId: added.userId, tokenId: id });
    expect(() => requireAgent(principal)).toThrow(unauthenticated);
    expect(await seatFor(added.userId, agent.agent.accountId)).toEqual({
      accountId: agent.agent.accountId,
      handle: "ops",
      role: "admin",
      delegators: [],
    });
    await revokeToken(id);
    await expect(authenticate(bearer(token))).rejects.toThrow(unauthenticated);
  });

  it("gives no seat in an account the user does not belong to", async () => {
    const other = await createAccount("other");
    const user = await db().user.findUniqueOrThrow({ where: { email: "ops@example.com" } });
    expect(await seatFor(user.id, other.id)).toBeNull();
  });
});
