import { createCipheriv, randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { env, resetEnvCache } from "./env";
import { sealContext } from "./sealed/catalogue";
import {
  credentialsEqual,
  currentSealKey,
  deriveSealKey,
  hashCredential,
  isLegacySealed,
  openLegacySecret,
  openSecret,
  sealSecret,
} from "./secrets";

const saved = { ...process.env };
const SECRET = "unit-test-auth-secret-0123456789abcdef";
const ctx = sealContext("bindingSecret", {
  binding_id: "bnd_1",
  ref: "hooks",
  scheme: "https",
  host: "hooks.example",
  port: 443,
  path_prefix: "/",
});

/** A value in format v1 (the older one): AES-GCM with the version alone as associated data. */
function legacySeal(material: string, plaintext: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", deriveSealKey(material).bytes, iv, { authTagLength: 16 });
  c.setAAD(Buffer.from("v1"));
  const ct = Buffer.concat([c.update(plaintext, "utf8"), c.final()]);
  return ["v1", iv, c.getAuthTag(), ct].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

beforeEach(() => {
  process.env.DATABASE_URL ??= "postgresql://unused";
  process.env.AUTH_SECRET = SECRET;
  delete process.env.MA2H_SECRETS_KEY;
  resetEnvCache();
});

afterEach(() => {
  process.env = { ...saved };
  resetEnvCache();
});

describe("sealSecret / openSecret", () => {
  it("round-trips and never contains the plaintext", () => {
    const sealed = sealSecret("hunter2-plaintext", ctx);
    expect(sealed).toMatch(/^v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("hunter2");
    expect(openSecret(sealed, ctx)).toBe("hunter2-plaintext");
    expect(sealSecret("hunter2-plaintext", ctx)).not.toBe(sealed); // fresh IV each time
  });

  it("rejects tampering and a different key", () => {
    const sealed = sealSecret("value", ctx);
    const [v, iv, tag, ct] = sealed.split(".") as [string, string, string, string];
    const flipped = Buffer.from(ct, "base64url");
    flipped[0] = flipped[0]! ^ 1;
    expect(() => openSecret([v, iv, tag, flipped.toString("base64url")].join("."), ctx)).toThrow(
      /authentication failed/,
    );
    expect(() => openSecret("v3.a.b.c", ctx)).toThrow(/unknown format/);
    process.env.AUTH_SECRET = "another-secret-0123456789abcdef-0123";
    resetEnvCache();
    expect(() => openSecret(sealed, ctx)).toThrow(/authentication failed/);
  });

  // The associated data names the purpose and the row.
  it("opens only for the purpose and row it was sealed for", () => {
    const sealed = sealSecret("value", ctx);
    const others = [
      sealContext("bindingSecret", {
        binding_id: "bnd_2",
        ref: "hooks",
        scheme: "https",
        host: "hooks.example",
        port: 443,
        path_prefix: "/",
      }),
      sealContext("bindingSecret", {
        binding_id: "bnd_1",
        ref: "hooks2",
        scheme: "https",
        host: "hooks.example",
        port: 443,
        path_prefix: "/",
      }),
      // The same strings split differently must not collide.
      sealContext("bindingSecret", {
        binding_id: "bnd_1hooks",
        ref: "",
        scheme: "https",
        host: "hooks.example",
        port: 443,
        path_prefix: "/",
      }),
      sealContext("slackBotToken", { account_id: "bnd_1" }),
      sealContext("signingKey", { kid: "bnd_1" }),
    ];
    for (const other of others) expect(() => openSecret(sealed, other)).toThrow(/authentication failed/);
    expect(openSecret(sealed, ctx)).toBe("value");
  });

  it("never opens an old-format value in a normal read; only openLegacySecret does", () => {
    const old = legacySeal(SECRET, "legacy-plain");
    expect(isLegacySealed(old)).toBe(true);
    expect(() => openSecret(old, ctx)).toThrow(/old format/);
    expect(openLegacySecret(old, currentSealKey())).toBe("legacy-plain");
    expect(() => openLegacySecret(sealSecret("x", ctx), currentSealKey())).toThrow(/unknown format/);
  });

  it("prefers MA2H_SECRETS_KEY and fails clearly without key material", () => {
    process.env.MA2H_SECRETS_KEY = "dedicated-key-material-0123456789abcdef";
    resetEnvCache();
    const sealed = sealSecret("x", ctx);
    delete process.env.MA2H_SECRETS_KEY;
    resetEnvCache();
    expect(() => openSecret(sealed, ctx)).toThrow();
    delete process.env.AUTH_SECRET;
    resetEnvCache();
    expect(() => sealSecret("x", ctx)).toThrow(/AUTH_SECRET is not set/);
  });
});

// Key material shorter than 32 bytes (UTF-8 length as given) is refused at start.
describe("secret length", () => {
  const parse = (vars: Record<string, string | undefined>) => {
    Object.assign(process.env, vars);
    for (const [k, v] of Object.entries(vars)) if (v === undefined) delete process.env[k];
    resetEnvCache();
    return () => env();
  };

  it("refuses an AUTH_SECRET or MA2H_SECRETS_KEY under 32 bytes, counting UTF-8 bytes", () => {
    expect(parse({ AUTH_SECRET: "x".repeat(31) })).toThrow(/AUTH_SECRET: must be at least 32 bytes/);
    expect(parse({ AUTH_SECRET: "x".repeat(32) })).not.toThrow();
    // 11 × "é" is 11 characters but 22 bytes; 16 × "é" is 32 bytes.
    expect(parse({ AUTH_SECRET: "é".repeat(11) })).toThrow(/at least 32 bytes/);
    expect(parse({ AUTH_SECRET: "é".repeat(16) })).not.toThrow();
    expect(parse({ AUTH_SECRET: SECRET, MA2H_SECRETS_KEY: "short-key" })).toThrow(
      /MA2H_SECRETS_KEY: must be at least 32 bytes/,
    );
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
