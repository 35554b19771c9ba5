import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env";
import { oidcClaimSettings, providerSettings } from "./providers";

const KEYS = [
  "AUTH_OIDC_ISSUER",
  "AUTH_OIDC_CLIENT_ID",
  "AUTH_OIDC_CLIENT_SECRET",
  "MA2H_OIDC_KIND",
  "MA2H_OIDC_GROUPS_CLAIM",
  "MA2H_OIDC_EXTRA_SCOPES",
];

function configure(values: Record<string, string>): void {
  for (const k of KEYS) delete process.env[k];
  Object.assign(process.env, {
    AUTH_OIDC_ISSUER: "https://login.microsoftonline.com/tenant/v2.0/",
    AUTH_OIDC_CLIENT_ID: "hub",
    AUTH_OIDC_CLIENT_SECRET: "secret",
    ...values,
  });
  resetEnvCache();
}

afterEach(() => {
  for (const k of KEYS) delete process.env[k];
  resetEnvCache();
});

describe("the OIDC provider's claim settings (MA2H_OIDC_*)", () => {
  it("default: a generic issuer, no groups claim, the standard scopes", () => {
    configure({});
    expect(oidcClaimSettings()).toEqual({ kind: "generic", groupsClaim: undefined, scope: "openid email profile" });
    expect(providerSettings()[0]).toMatchObject({
      id: "oidc",
      issuer: "https://login.microsoftonline.com/tenant/v2.0",
    });
    configure({ MA2H_OIDC_KIND: "" });
    expect(oidcClaimSettings()?.kind).toBe("generic");
  });

  it("entra, a groups claim, and extra scopes each asked once", () => {
    configure({ MA2H_OIDC_KIND: "entra", MA2H_OIDC_GROUPS_CLAIM: "groups", MA2H_OIDC_EXTRA_SCOPES: " groups  email " });
    expect(oidcClaimSettings()).toEqual({ kind: "entra", groupsClaim: "groups", scope: "openid email profile groups" });
  });

  it("a bad value refuses the configuration, by name", () => {
    for (const [key, value] of [
      ["MA2H_OIDC_KIND", "azure"],
      ["MA2H_OIDC_KIND", "Entra"],
      ["MA2H_OIDC_GROUPS_CLAIM", "_claim_names"],
      ["MA2H_OIDC_GROUPS_CLAIM", "my groups"],
      ["MA2H_OIDC_EXTRA_SCOPES", 'groups "x"'],
      ["MA2H_OIDC_EXTRA_SCOPES", "groups\\x"],
    ] as const) {
      configure({ [key]: value });
      expect(() => providerSettings(), `${key}=${value}`).toThrow(`Invalid configuration: ${key}`);
    }
  });

  it("no OIDC provider, no claim settings", () => {
    configure({ MA2H_OIDC_KIND: "entra" });
    delete process.env.AUTH_OIDC_ISSUER;
    resetEnvCache();
    expect(oidcClaimSettings()).toBeNull();
  });
});
