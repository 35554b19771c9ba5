import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "./env";
import { credentialsEqual, hashCredential, openSecret, sealSecret } from "./secrets";

const saved = { ...process.env };

beforeEach(() => {
  process.env.DATABASE_URL ??= "postgresql://unused";
  process.env.AUTH_SECRET = "unit-test-auth-secret";
  delete process.env.MA2H_SECRETS_KEY;
  resetEnvCache();
});

afterEach(() => {
  process.env = { ...saved };
  resetEnvCache();
});

describe("sealSecret / openSecret", () => {
  it("round-trips and never contains the plaintext", () => {
    const sealed = sealSecret("hunter2-plaintext");
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("hunter2");
    expect(openSecret(sealed)).toBe("hunter2-plaintext");
    expect(sealSecret("hunter2-plaintext")).not.toBe(sealed); // fresh IV each time
  });

  it("rejects tampering and a different key", () => {
    const sealed = sealSecret("value");
    const [v, iv, tag, ct] = sealed.split(".") as [string, string, string, string];
    const flipped = Buffer.from(ct, "base64url");
    flipped[0] = flipped[0]! ^ 1;
    expect(() => openSecret([v, iv, tag, flipped.toString("base64url")].join("."))).toThrow(/authentication failed/);
    expect(() => openSecret("v2.a.b.c")).toThrow(/unknown format/);
    process.env.AUTH_SECRET = "another-secret";
    resetEnvCache();
    expect(() => openSecret(sealed)).toThrow(/authentication failed/);
  });

  it("prefers MA2H_SECRETS_KEY and fails clearly without key material", () => {
    process.env.MA2H_SECRETS_KEY = "dedicated";
    resetEnvCache();
    const sealed = sealSecret("x");
    delete process.env.MA2H_SECRETS_KEY;
    resetEnvCache();
    expect(() => openSecret(sealed)).toThrow();
    delete process.env.AUTH_SECRET;
    resetEnvCache();
    expect(() => sealSecret("x")).toThrow(/AUTH_SECRET is not set/);
  });
});

describe("credential hashing", () => {
  it("hashes with SHA-256 hex and compares in constant time", () => {
    const h = hashCredential("ma2h_key_abc");
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(credentialsEqual(h, hashCredential("ma2h_key_abc"))).toBe(true);
    expect(credentialsEqual(h, hashCredential("ma2h_key_abd"))).toBe(false);
    expect(credentialsEqual(h, h.slice(1))).toBe(false);
  });
});
