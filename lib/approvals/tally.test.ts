import { describe, expect, it } from "vitest";
import type { Quorum } from "../policies/evaluate";
import { approvalsLine, type CountedVote, groupsStillNeeded, tally } from "./tally";

const quorum = (q: Partial<Quorum> = {}): Quorum => ({
  approvals: 2,
  approvals_rule: "prod-deploys",
  require_from: [],
  exclude_sponsors: null,
  veto: null,
  ...q,
});
const SRE = { group: "sre", rule: "prod-deploys", members: ["alice", "bob"] };
const vote = (handle: string, key: string, over: Partial<CountedVote> = {}): CountedVote => ({
  handle,
  key,
  counts: true,
  groups: [],
  ...over,
});

describe("the quorum count", () => {
  it("a delegate's vote takes its delegator's place: the two agreeing count once (docs/policies.md \"Delegation\")", () => {
    const both = [vote("bob", "approve"), vote("carol", "approve", { as: "bob" })];
    expect(tally(quorum(), both)).toEqual({ need: 2, have: { approve: 1 }, complete: null });
    expect(tally(quorum(), [...both, vote("dan", "approve")]).complete).toBe("approve");
    // A lone delegated vote is one place, and the delegate's own groups are what it covers.
    const sre = quorum({ require_from: [SRE] });
    expect(tally(sre, [vote("carol", "approve", { as: "bob" }), vote("dan", "approve")]).complete).toBeNull();
    expect(
      approvalsLine({
        need: 2,
        have: { approve: 1 },
        votes: [{ handle: "carol", value: "approve", comment: null, at: new Date(0), counts: true, forHandle: "bob" }],
      }),
    ).toBe("1 of 2 approvals — carol for bob: approve");
  });

  it("an answer completes with M counting votes; a vote that no longer counts is not one of them", () => {
    expect(tally(quorum(), [vote("alice", "approve")])).toEqual({ need: 2, have: { approve: 1 }, complete: null });
    expect(tally(quorum(), [vote("alice", "approve"), vote("carol", "deny")]).complete).toBeNull();
    expect(tally(quorum(), [vote("alice", "approve"), vote("carol", "approve")]).complete).toBe("approve");
    const lost = [vote("alice", "approve", { counts: false }), vote("carol", "approve")];
    expect(tally(quorum(), lost)).toEqual({ need: 2, have: { approve: 1 }, complete: null });
  });

  it("require_from: M votes from outside the group leave it open until one from inside, counting or not", () => {
    const q = quorum({ require_from: [SRE] });
    const outside = [vote("carol", "approve"), vote("dan", "approve")];
    expect(tally(q, outside).complete).toBeNull();
    expect(tally(q, [...outside, vote("alice", "approve", { groups: ["sre"] })]).complete).toBe("approve");
    // A group member who no longer counts does not cover it; one voting another answer does not either.
    expect(tally(q, [...outside, vote("alice", "approve", { groups: ["sre"], counts: false })]).complete).toBeNull();
    expect(tally(q, [...outside, vote("alice", "deny", { groups: ["sre"] })]).complete).toBeNull();
    // Two groups, one person in both covers both.
    const two = quorum({ require_from: [SRE, { group: "dba", rule: "db", members: ["alice"] }] });
    expect(tally(two, [vote("alice", "approve", { groups: ["sre", "dba"] }), vote("carol", "approve")]).complete).toBe(
      "approve",
    );
  });

  it("a vote that could change nothing is named: the answer has its approvals and only a group is missing", () => {
    const q = quorum({ require_from: [SRE] });
    const outside = [vote("carol", "approve"), vote("dan", "approve")];
    expect(groupsStillNeeded(q, outside, { handle: "erin", key: "approve", groups: [] })).toEqual(["sre"]);
    expect(groupsStillNeeded(q, outside, { handle: "alice", key: "approve", groups: ["sre"] })).toEqual([]);
    // Another answer, or an answer still short of M: the vote helps.
    expect(groupsStillNeeded(q, outside, { handle: "erin", key: "deny", groups: [] })).toEqual([]);
    expect(groupsStillNeeded(q, outside.slice(0, 1), { handle: "erin", key: "approve", groups: [] })).toEqual([]);
    // Changing one's own vote is not counted against oneself.
    expect(groupsStillNeeded(q, outside, { handle: "carol", key: "approve", groups: [] })).toEqual([]);
    expect(groupsStillNeeded(quorum(), outside, { handle: "erin", key: "approve", groups: [] })).toEqual([]);
  });

  it("one line for every channel: the best-supported answer's count, then each vote", () => {
    const at = new Date("2026-12-01T10:02:00Z");
    expect(approvalsLine({ need: 2, have: {}, votes: [] })).toBe("0 of 2 approvals");
    const state = {
      need: 2,
      have: { approve: 1 },
      votes: [
        { handle: "alice", value: "approve", comment: null, at, counts: true },
        { handle: "carol", value: "approve", comment: "ok", at, counts: false },
      ],
    };
    expect(approvalsLine(state)).toBe("1 of 2 approvals — alice: approve; carol: approve (not counted)");
    expect(approvalsLine(state, (d) => d.toISOString().slice(11, 16))).toBe(
      "1 of 2 approvals — alice: approve, 10:02; carol: approve, 10:02 (not counted)",
    );
  });
});
