/**
 * Who answered (§9.1 `response.actor`), without a Hub: `byHuman` on what `wait()` returns,
 * `requireHuman`'s mark on the envelope and its refusal of a non-person's answer or decline (an
 * expiry, its default applied or not, is never refused), the CLI's exit code and stderr line for it,
 * and the MCP result text of an answer a standing rule gave (`system:rule/…`).
 */
// covers: packages/agent/src/answers.ts, packages/agent/src/wait.ts, packages/agent/src/cli/outcome.ts, packages/protocol/src/mcp-outcome.ts, packages/agent/src/envelopes.ts
import { afterEach, describe, expect, it, vi } from "vitest";
import type { HubResponse } from "@ma2h/protocol/response";
import { answerOf, assertAnsweredByHuman, HUMAN_ONLY_FIELD } from "../src/answers";
import { EXIT, EXIT_DESCRIPTIONS } from "../src/cli/exit-codes";
import { exitFor, report } from "../src/cli/outcome";
import { confirmEnvelope, inputEnvelope, selectEnvelope, validateEnvelope } from "../src/envelopes";
import { isHumanAnswer, Ma2hError, NotAnsweredByHumanError } from "../src";
import { responseResult, ruleSetter } from "@ma2h/protocol/mcp-outcome";
import type { Transport } from "../src/transport";
import { waitForResponse } from "../src/wait";

const RULE = "system:rule/rule_7h5pbt41btpy6g72";
const RULE_COMMENT = "answered by a standing rule set by human:alice";

function res(
  resolution: HubResponse["resolution"],
  actor: string | undefined,
  extra: { value?: unknown; comment?: string; defaulted?: boolean } = {},
): HubResponse {
  const { defaulted, ...detail } = extra;
  return {
    ma2h_version: "0.6",
    in_reply_to: "msg_1",
    resolution_id: "res_1",
    agent: { id: "deploybot/dev-team", run_id: "run_1" },
    resolution,
    ...(defaulted !== undefined ? { defaulted } : {}),
    ...(actor !== undefined ? { response: { actor, resolved_at: "2026-12-07T13:00:00Z", ...detail } } : {}),
  } as HubResponse;
}

const byRule = res("answered", RULE, { value: "approve", comment: RULE_COMMENT });
const byAlice = res("answered", "human:alice", { value: "approve" });
const byAgent = res("answered", "agent:x", { value: "approve" });
const defaulted = res("expired", "system:default_on_expire", { value: "approve", defaulted: true });

/** A transport whose one GET answers the terminal message carrying `response`. */
function terminal(response: HubResponse): Transport {
  return {
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    request: async () => ({
      status: 200,
      headers: new Headers(),
      body: { id: response.in_reply_to, type: "ask", status: response.resolution, response },
    }),
  } as unknown as Transport;
}

describe("byHuman (§9.1): true exactly for a human: actor", () => {
  it("is true for human:alice and false for a standing rule, the expiry default, an agent and no actor", () => {
    expect(answerOf(byAlice).byHuman).toBe(true);
    expect(answerOf(byRule).byHuman).toBe(false);
    expect(answerOf(defaulted).byHuman).toBe(false);
    expect(answerOf(byAgent).byHuman).toBe(false);
    expect(answerOf(res("expired", undefined)).byHuman).toBe(false);
    // A comment naming a person does not make a rule's answer a person's: only the actor counts.
    expect(isHumanAnswer(res("answered", RULE, { comment: "human:alice" }))).toBe(false);
    expect(isHumanAnswer(res("answered", "humanoid:alice"))).toBe(false);
  });

  it("is not part of the Response's JSON: the wire shape stays the Hub's", () => {
    const answer = answerOf(byAlice);
    expect(JSON.parse(JSON.stringify(answer))).toEqual(byAlice);
    expect(Object.keys(answer)).not.toContain("byHuman");
  });

  it("comes back on what wait() returns", async () => {
    expect((await waitForResponse(terminal(byAlice), "msg_1")).byHuman).toBe(true);
    expect((await waitForResponse(terminal(byRule), "msg_1")).byHuman).toBe(false);
  });
});

describe("requireHuman", () => {
  const ctx = { version: "0.6", agent: { id: "deploybot/dev-team", run_id: "run_1", runtime: "other" } };

  it('puts "x-ma2h-human-only": true on the request of every ask mode, and nothing without it', () => {
    const envelopes = [
      confirmEnvelope(ctx, { title: "Deploy?", requireHuman: true }),
      selectEnvelope(ctx, { title: "Region?", options: ["eu", "us"], requireHuman: true }),
      inputEnvelope(ctx, {
        title: "Notes?",
        schema: { type: "object", properties: { s: { type: "string" } } },
        requireHuman: true,
      }),
    ];
    for (const e of envelopes) {
      expect(HUMAN_ONLY_FIELD).toBe("x-ma2h-human-only");
      expect((e.request as Record<string, unknown>)[HUMAN_ONLY_FIELD]).toBe(true);
      // The local check keeps the extension field (the request object is open).
      expect((validateEnvelope(e).request as Record<string, unknown>)[HUMAN_ONLY_FIELD]).toBe(true);
    }
    expect(confirmEnvelope(ctx, { title: "Deploy?" }).request).not.toHaveProperty(HUMAN_ONLY_FIELD);
    expect(confirmEnvelope(ctx, { title: "Deploy?", requireHuman: false }).request).not.toHaveProperty(
      HUMAN_ONLY_FIELD,
    );
    // An ask addressed to another agent is answered by that agent: never with requireHuman.
    expect(() => confirmEnvelope(ctx, { title: "Done?", to: "agent:db-worker/fleet", requireHuman: true })).toThrow(
      /requireHuman/u,
    );
    expect(confirmEnvelope(ctx, { title: "Done?", to: "agent:db-worker/fleet" }).to).toBe("agent:db-worker/fleet");
  });

  it("refuses an answer or decline by a standing rule or an agent, with the actor and the Response", () => {
    for (const r of [byRule, byAgent, res("declined", RULE, { comment: RULE_COMMENT }), res("answered", undefined)]) {
      let thrown: unknown = null;
      try {
        assertAnsweredByHuman(r);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, `${r.resolution} by ${r.response?.actor}`).toBeInstanceOf(NotAnsweredByHumanError);
      const err = thrown as NotAnsweredByHumanError;
      expect(err).toBeInstanceOf(Ma2hError);
      expect(err.code).toBe("not_answered_by_human");
      expect(err.actor).toBe(r.response?.actor ?? null);
      expect(err.response).toBe(r);
    }
  });

  it("lets a person's answer or decline, an expiry (default applied or not) and a cancel through", () => {
    for (const r of [
      byAlice,
      res("declined", "human:bob"),
      defaulted,
      res("expired", undefined),
      res("cancelled", "agent:deploybot/dev-team"),
    ])
      expect(() => assertAnsweredByHuman(r), `${r.resolution} by ${r.response?.actor}`).not.toThrow();
  });

  it("makes wait() throw only when asked to", async () => {
    await expect(waitForResponse(terminal(byRule), "msg_1", { requireHuman: true })).rejects.toMatchObject({
      name: "NotAnsweredByHumanError",
      actor: RULE,
    });
    await expect(waitForResponse(terminal(byAgent), "msg_1", { requireHuman: true })).rejects.toBeInstanceOf(
      NotAnsweredByHumanError,
    );
    expect((await waitForResponse(terminal(byAlice), "msg_1", { requireHuman: true })).byHuman).toBe(true);
    const fallback = await waitForResponse(terminal(defaulted), "msg_1", { requireHuman: true });
    expect(fallback).toMatchObject({ resolution: "expired", byHuman: false });
    expect((await waitForResponse(terminal(byRule), "msg_1")).response?.actor).toBe(RULE);
  });
});

describe("ma2h ask --require-human: the exit code", () => {
  let out = "";
  let err = "";
  const capture = () => {
    out = "";
    err = "";
    vi.spyOn(process.stdout, "write").mockImplementation((s) => {
      out += String(s);
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation((s) => {
      err += String(s);
      return true;
    });
  };
  afterEach(() => vi.restoreAllMocks());

  it("has a stable code of its own, described in the one table", () => {
    expect(EXIT.notByHuman).toBe(9);
    const codes = EXIT_DESCRIPTIONS.map(([code]) => code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toContain(EXIT.notByHuman);
  });

  it("maps each outcome to its exit code, with and without --require-human", () => {
    const confirm = { mode: "confirm" };
    const cases: Array<[HubResponse, boolean, number]> = [
      [byAlice, true, EXIT.ok],
      [byAlice, false, EXIT.ok],
      [byRule, true, EXIT.notByHuman],
      [byRule, false, EXIT.ok],
      [byAgent, true, EXIT.notByHuman],
      [res("answered", RULE, { value: "deny" }), true, EXIT.notByHuman],
      [res("declined", RULE), true, EXIT.notByHuman],
      [res("declined", "human:alice"), true, EXIT.notAnswered],
      [defaulted, true, EXIT.notAnswered],
      [res("expired", undefined), true, EXIT.notAnswered],
      [res("answered", "human:alice", { value: "deny" }), true, EXIT.denied],
    ];
    for (const [r, requireHuman, code] of cases)
      expect(exitFor(r, confirm, requireHuman), `${r.resolution} by ${r.response?.actor}, ${requireHuman}`).toBe(code);
  });

  it("prints nothing on stdout and one stderr line naming the actor", () => {
    capture();
    expect(report(byRule, { shape: { mode: "confirm" }, json: false, requireHuman: true })).toBe(EXIT.notByHuman);
    expect(out).toBe("");
    expect(err).toBe(`ma2h: not_answered_by_human: msg_1 was answered by ${RULE}, not by a person (--require-human)\n`);
    capture();
    expect(report(byRule, { shape: { mode: "confirm" }, json: true, requireHuman: true })).toBe(EXIT.notByHuman);
    expect(JSON.parse(out)).toEqual(byRule);
  });

  it("without --require-human, prints a rule's answer and says on stderr that no person chose it", () => {
    capture();
    expect(report(byRule, { shape: { mode: "confirm" }, json: false })).toBe(EXIT.ok);
    expect(out).toBe("approve\n");
    expect(err).toContain(`by a standing rule (${RULE}), not by a person`);
    capture();
    expect(report(byAlice, { shape: { mode: "confirm" }, json: false, requireHuman: true })).toBe(EXIT.ok);
    expect(out).toBe("approve\n");
    expect(err).toBe("");
  });
});

describe("MCP: an answer by a standing rule", () => {
  const text = (r: HubResponse) => {
    const c = responseResult(r, { mode: "confirm" }).content[0];
    return c?.type === "text" ? c.text : "";
  };

  it("names the rule and who set it, not a person's choice", () => {
    const result = responseResult(byRule, { mode: "confirm" });
    expect(text(byRule)).toContain("answered by a standing rule set by human:alice");
    expect(text(byRule)).toContain(RULE);
    expect(text(byRule)).not.toContain("The person");
    expect(result.structuredContent).toMatchObject({ answered: true, value: "approve", actor: RULE, by_human: false });
    const declined = res("declined", RULE, { comment: "declined by a standing rule set by human:bob" });
    expect(text(declined)).toContain("declined by a standing rule set by human:bob");
  });

  it("falls back to the rule's actor when the comment names nobody", () => {
    expect(ruleSetter(res("answered", RULE, { value: "approve" }))).toBe(RULE);
    expect(ruleSetter(res("answered", RULE, { comment: "set by human:carol." }))).toBe("human:carol");
    expect(ruleSetter(byAlice)).toBeNull();
    expect(text(res("answered", RULE, { value: "approve" }))).toContain(`answered by a standing rule set by ${RULE}`);
  });

  it("leaves a person's answer and an expiry default as they were", () => {
    expect(text(byAlice)).toBe("The person (human:alice) answered: approve\nMessage id: msg_1.");
    expect(responseResult(byAlice, { mode: "confirm" }).structuredContent).toMatchObject({ by_human: true });
    expect(text(defaulted)).toContain("the default you set was applied: approve (actor system:default_on_expire)");
    expect(text(defaulted)).not.toContain("standing rule");
    expect(text(byAgent)).not.toContain("standing rule");
  });
});
