import { describe, expect, it } from "vitest";
import { MAX_CLAIM_VALUES } from "../groups/claims";
import { readGroupsClaim } from "./groups-claim";

const PLATFORM = "3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b";

describe("readGroupsClaim (MA2H_OIDC_GROUPS_CLAIM)", () => {
  it("reads a list of strings under the configured name, an empty list included", () => {
    expect(readGroupsClaim({ sub: "s", groups: [PLATFORM, "oncall"] }, "groups")).toEqual({
      kind: "values",
      values: [PLATFORM, "oncall"],
    });
    expect(readGroupsClaim({ groups: [] }, "groups")).toEqual({ kind: "values", values: [] });
    // Another name (Entra app roles, a Keycloak mapper's own claim name): that one only.
    expect(readGroupsClaim({ groups: ["a"], roles: ["approver"] }, "roles")).toEqual({
      kind: "values",
      values: ["approver"],
    });
  });

  it("Entra's overage pointer is an overage, even beside an inline list", () => {
    const pointer = {
      _claim_names: { groups: "src1" },
      _claim_sources: { src1: { endpoint: "https://graph.windows.net/t/users/u/getMemberObjects" } },
    };
    expect(readGroupsClaim(pointer, "groups")).toEqual({ kind: "overage" });
    expect(readGroupsClaim({ ...pointer, groups: [PLATFORM] }, "groups")).toEqual({ kind: "overage" });
    // A pointer for another claim says nothing of this one.
    expect(readGroupsClaim({ _claim_names: { roles: "src1" }, groups: [PLATFORM] }, "groups")).toEqual({
      kind: "values",
      values: [PLATFORM],
    });
    expect(readGroupsClaim({ _claim_names: "groups", groups: ["x"] }, "groups")).toEqual({
      kind: "values",
      values: ["x"],
    });
  });

  it("no claim, or a null one, is absent", () => {
    expect(readGroupsClaim(undefined, "groups")).toEqual({ kind: "absent" });
    expect(readGroupsClaim({ sub: "s" }, "groups")).toEqual({ kind: "absent" });
    expect(readGroupsClaim({ groups: null }, "groups")).toEqual({ kind: "absent" });
    // Never a property of Object.prototype mistaken for a claim.
    expect(readGroupsClaim({}, "constructor")).toEqual({ kind: "absent" });
  });

  it("anything but a list of strings is malformed: never split or coerced", () => {
    for (const bad of ["platform", "a,b", 1, true, { 0: "a" }, [1, 2], ["a", 2], ["a", null], [["a"]]])
      expect(readGroupsClaim({ groups: bad }, "groups"), JSON.stringify(bad)).toEqual({ kind: "malformed" });
  });

  it("a list longer than the sync reads is too many, not read in part", () => {
    const at = Array.from({ length: MAX_CLAIM_VALUES }, (_, i) => `g${i}`);
    expect(readGroupsClaim({ groups: at }, "groups")).toMatchObject({ kind: "values" });
    expect(readGroupsClaim({ groups: [...at, "one-more"] }, "groups")).toEqual({
      kind: "too_many",
      count: MAX_CLAIM_VALUES + 1,
    });
  });
});
