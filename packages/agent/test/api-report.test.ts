/**
 * The package's public surface is pinned: packages/agent/api-report.md lists every export of
 * src/index.ts with its kind and, for classes and interfaces, their public members and signatures.
 * A change to the surface fails here until the report is regenerated (`npm run api:report -w
 * @ma2h/agent`) and committed, so it is deliberate and reviewed. And what the surface promises holds
 * at run time: internals stay out, and every error class is a Ma2hError with a `code`.
 */
// covers: packages/agent/src/index.ts, packages/agent/api-report.mjs
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module without declarations
import { apiReport, REPORT } from "../api-report.mjs";
import * as sdk from "../src/index";

describe("the public API report", () => {
  it("matches the exports of src/index.ts (regenerate with npm run api:report -w @ma2h/agent)", () => {
    const now = (apiReport as () => string)();
    expect(now, "the public surface changed: run `npm run api:report -w @ma2h/agent` and commit the report").toBe(
      readFileSync(REPORT as string, "utf8"),
    );
  }, 60_000);
});

describe("the surface at run time", () => {
  it("exports the client, the verifiers, the receivers, the state seal and the stores — and no internals", () => {
    const names = Object.keys(sdk);
    for (const name of ["Ma2hClient", "verifyPush", "verifyDirective", "verifyEntry", "nodePushHandler", "sealState"])
      expect(names).toContain(name);
    for (const internal of ["Transport", "sleep", "backoffDelay", "parseRetryAfter", "errorFromResponse", "localError"])
      expect(names).not.toContain(internal);
  });

  it("every exported error class extends Ma2hError and carries a code", () => {
    const classes = Object.entries(sdk).filter(
      ([name, value]) => typeof value === "function" && name.endsWith("Error"),
    ) as Array<[string, new (...args: never[]) => Error]>;
    expect(classes.length).toBeGreaterThanOrEqual(27);
    for (const [name, Class] of classes) {
      expect(Class === sdk.Ma2hError || Class.prototype instanceof sdk.Ma2hError, name).toBe(true);
    }
    expect(new sdk.VerificationError("replayed")).toMatchObject({ code: "verification_failed", reason: "replayed" });
    expect(new sdk.HubKeysError("down")).toMatchObject({ code: "keys_unavailable", name: "HubKeysError" });
    expect(new sdk.StateIntegrityError()).toMatchObject({ code: "state_integrity", name: "StateIntegrityError" });
    expect(new sdk.SenderNotAcceptedError("agent:x", "dir_1")).toMatchObject({
      code: "sender_not_accepted",
      from: "agent:x",
      ackKey: "dir_1",
    });
  });
});
