import { describe, expect, it } from "vitest";
import { oidcAssertsEmailVerified } from "./verified-email";

describe("oidcAssertsEmailVerified", () => {
  it("generic: email_verified, the JSON boolean true only; xms_edov counts for nothing", () => {
    expect(oidcAssertsEmailVerified("generic", { email_verified: true })).toBe(true);
    for (const v of [false, "true", 1, null, undefined])
      expect(oidcAssertsEmailVerified("generic", { email_verified: v }), String(v)).toBe(false);
    expect(oidcAssertsEmailVerified("generic", { xms_edov: true })).toBe(false);
    expect(oidcAssertsEmailVerified("generic", undefined)).toBe(false);
  });

  it("entra: xms_edov, the JSON boolean true only, in place of email_verified", () => {
    expect(oidcAssertsEmailVerified("entra", { email: "pat@contoso.test", xms_edov: true })).toBe(true);
    for (const v of [false, "true", "1", 1, null, undefined])
      expect(oidcAssertsEmailVerified("entra", { xms_edov: v }), String(v)).toBe(false);
    // An email_verified in an Entra token is not Entra's signal: not taken.
    expect(oidcAssertsEmailVerified("entra", { email_verified: true })).toBe(false);
    expect(oidcAssertsEmailVerified("entra", undefined)).toBe(false);
  });
});
