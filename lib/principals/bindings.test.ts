/** Callback host bindings (§9.4) against real PostgreSQL: parsed-URL matching only. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../test/support/database";
import { closeDb, db } from "../db";
import { resetEnvCache } from "../env";
import { createAccount } from "./accounts";
import { createAgent } from "./agents";
import {
  addBinding,
  addBindingSecret,
  assertCallbackAllowed,
  findCallbackBinding,
  listBindings,
  resolveCallbackSecret,
  revokeBinding,
} from "./bindings";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let agentRow: string;
let otherAgentRow: string;
let hooks: string;

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  process.env.AUTH_SECRET = "bindings-test-secret-0123456789abcdef";
  resetEnvCache();
  await createAccount("acme");
  agentRow = (await createAgent("bot", "acme")).agent.id;
  otherAgentRow = (await createAgent("other-bot", "acme")).agent.id;
  const ref = { agentId: "bot" };
  hooks = (
    await addBinding({
      agentRef: ref,
      origin: "https://Good.Example",
      pathPrefix: "/hooks",
      secretRef: "h1",
      secret: "SECRETVALUE_h1",
    })
  ).id;
  await addBinding({ agentRef: ref, origin: "http://127.0.0.1:8080", secretRef: "local", secret: "SECRETVALUE_local" });
  await addBinding({ agentRef: ref, origin: "https://[::1]", secretRef: "v6", secret: "SECRETVALUE_v6" });
  await addBinding({
    agentRef: { agentId: "other-bot" },
    origin: "https://other.example",
    secretRef: "o",
    secret: "SECRETVALUE_o",
  });
});

afterAll(async () => {
  await closeDb();
  await database?.drop();
});

const find = (url: string, ref?: string, row = agentRow) => findCallbackBinding(row, url, ref);

describe("findCallbackBinding", () => {
  it.each([
    "https://good.example/hooks",
    "https://good.example/hooks/x?y=1",
    "https://GOOD.example:443/hooks/deep/er",
    "https://good.example/hooks/",
  ])("matches %s", async (url) => {
    expect(await find(url)).toMatchObject({ bindingId: hooks, origin: "https://good.example" });
  });

  it.each([
    "https://good.example/hooksevil",
    "https://good.example/",
    "https://good.example:8443/hooks",
    "http://good.example/hooks",
    "https://good.example.evil.com/hooks",
    "https://evil.com/good.example/hooks",
    "https://good.example@evil.com/hooks",
    "https://user@good.example/hooks",
    "https://other.example/",
    "not a url",
    // Escapes of the bound /hooks prefix, however a receiver would decode or normalise them
    "https://good.example/hooks/..%2fadmin",
    "https://good.example/hooks/%2e%2e/admin",
    "https://good.example/hooks;x/y",
    "https://good.example/hooks//y",
    "https://good.example/hooks\\y",
  ])("does not match %s", async (url) => {
    expect(await find(url)).toBeNull();
  });

  it("applies default ports and IPv6 normalisation as parsed values", async () => {
    expect(await find("http://127.0.0.1:8080/anything")).not.toBeNull();
    expect(await find("http://127.0.0.1/anything")).toBeNull();
    expect(await find("https://[0:0:0:0:0:0:0:1]:443/x")).toMatchObject({ origin: "https://[::1]" });
  });

  it("requires the named ref to belong to the matching binding", async () => {
    expect(await find("https://good.example/hooks", "h1")).not.toBeNull();
    expect(await find("https://good.example/hooks", "local")).toBeNull();
    expect(await find("https://good.example/hooks", "nope")).toBeNull();
  });

  it("only considers the agent's own bindings", async () => {
    expect(await find("https://other.example/", undefined, otherAgentRow)).not.toBeNull();
    expect(await find("https://good.example/hooks", undefined, otherAgentRow)).toBeNull();
  });
});

describe("assertCallbackAllowed", () => {
  it("lets pull and absent callbacks through", async () => {
    await assertCallbackAllowed(agentRow, undefined);
    await assertCallbackAllowed(agentRow, { mode: "pull" });
  });

  it("accepts a push within a binding with its ref", async () => {
    await assertCallbackAllowed(agentRow, {
      mode: "push",
      url: "https://good.example/hooks/a",
      auth: { scheme: "hmac", secret_ref: "h1" },
    });
    await assertCallbackAllowed(agentRow, {
      mode: "push",
      url: "http://127.0.0.1:8080/cb",
      auth: { scheme: "bearer", token_ref: "local" },
    });
  });

  it("names the origin to approve when nothing matches", async () => {
    const err = await assertCallbackAllowed(agentRow, {
      mode: "push",
      url: "https://good.example.evil.com/hooks",
    }).catch((e) => e);
    expect(err).toMatchObject({ code: "invalid_field", status: 422 });
    expect(err.message).toContain(
      "callback.url origin https://good.example.evil.com is not an approved callback binding",
    );
    expect(err.message).toContain("ma2h-hub binding add --agent <id> --origin https://good.example.evil.com");
  });

  it("names the ref when it does not belong to the matching binding", async () => {
    const err = await assertCallbackAllowed(agentRow, {
      mode: "push",
      url: "https://good.example/hooks",
      auth: { scheme: "hmac", secret_ref: "local" },
    }).catch((e) => e);
    expect(err).toMatchObject({ code: "invalid_field" });
    expect(err.message).toContain('secret_ref "local"');
    expect(err.message).toContain("https://good.example");
  });

  it("requires a url for push", async () => {
    await expect(assertCallbackAllowed(agentRow, { mode: "push" })).rejects.toMatchObject({ code: "invalid_field" });
  });
});

describe("binding secrets and revocation", () => {
  it("seals secrets at rest and opens them for delivery", async () => {
    const rows = await db().bindingSecret.findMany();
    for (const r of rows) expect(r.sealed).not.toContain("SECRETVALUE_");
    expect(await resolveCallbackSecret(hooks, "h1")).toBe("SECRETVALUE_h1");
    expect(await resolveCallbackSecret(hooks, "nope")).toBeNull();
  });

  it("adds further named secrets, refusing a duplicate ref", async () => {
    await addBindingSecret(hooks, "h2", "SECRETVALUE_h2");
    expect(await find("https://good.example/hooks", "h2")).not.toBeNull();
    await expect(addBindingSecret(hooks, "h2", "again")).rejects.toMatchObject({ code: "invalid_field" });
    expect((await listBindings({ agentId: "bot" })).find((b) => b.id === hooks)?.secretRefs).toEqual(["h1", "h2"]);
  });

  it("stops matching once revoked", async () => {
    const b = await addBinding({
      agentRef: { agentId: "bot" },
      origin: "https://temp.example",
      secretRef: "t",
      secret: "SECRETVALUE_t",
    });
    expect(await find("https://temp.example/x")).not.toBeNull();
    expect(await revokeBinding(b.id)).toEqual({ id: b.id, revoked: true });
    expect(await find("https://temp.example/x")).toBeNull();
    expect(await resolveCallbackSecret(b.id, "t")).toBeNull();
    expect((await listBindings({ agentId: "bot" })).map((x) => x.id)).not.toContain(b.id);
    await expect(revokeBinding("bnd_unknown")).rejects.toMatchObject({ code: "not_found" });
  });

  it("writes audit events without secrets", async () => {
    const events = await db().auditEvent.findMany({ where: { event: { startsWith: "binding." } } });
    expect(events.map((e) => e.event)).toEqual(
      expect.arrayContaining(["binding.added", "binding.secret_added", "binding.revoked"]),
    );
    expect(JSON.stringify(events.map((e) => e.detail))).not.toContain("SECRETVALUE_");
  });
});

describe("MA2H_CALLBACK_ORIGIN_POLICY", () => {
  const web = { actor: "human:alice", accountId: "" };
  const add = (origin: string, opts?: { actor: string; accountId: string }) =>
    addBinding(
      { agentRef: { agentId: "bot" }, origin, secretRef: `p${Math.random()}`.slice(0, 20), secret: "s" },
      opts,
    );

  beforeAll(async () => {
    web.accountId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" } })).id;
    process.env.MA2H_CALLBACK_ORIGIN_POLICY = "*.partner.example, 203.0.113.0/24";
    resetEnvCache();
  });
  afterAll(() => {
    delete process.env.MA2H_CALLBACK_ORIGIN_POLICY;
    resetEnvCache();
  });

  it("an account admin may approve only origins inside the policy", async () => {
    await expect(add("https://hooks.partner.example", web)).resolves.toMatchObject({
      origin: "https://hooks.partner.example",
    });
    await expect(add("https://203.0.113.5:8443", web)).resolves.toMatchObject({ origin: "https://203.0.113.5:8443" });
    for (const outside of ["https://evil.example", "https://partner.example", "http://10.0.0.1", "https://[::1]"]) {
      await expect(add(outside, web), outside).rejects.toMatchObject({
        code: "not_authorized",
        message: expect.stringContaining("outside this Hub's callback origin policy"),
      });
    }
    const refused = await db().callbackBinding.count({ where: { host: "evil.example" } });
    expect(refused).toBe(0);
  });

  it("the Hub's operator (the CLI: no account scope) is exempt", async () => {
    await expect(add("https://evil-but-approved-by-operator.example")).resolves.toMatchObject({
      origin: "https://evil-but-approved-by-operator.example",
    });
  });

  it("a malformed policy stops the configuration from loading", async () => {
    process.env.MA2H_CALLBACK_ORIGIN_POLICY = "*.partner.example, https://bad.example/x";
    resetEnvCache();
    await expect(add("https://hooks.partner.example", web)).rejects.toThrow(/MA2H_CALLBACK_ORIGIN_POLICY/);
    process.env.MA2H_CALLBACK_ORIGIN_POLICY = "*.partner.example, 203.0.113.0/24";
    resetEnvCache();
  });
});
