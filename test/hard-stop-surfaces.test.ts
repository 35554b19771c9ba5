/**
 * §16.4.1 "no agent-invokable resume exists on any surface" (conformance checklist point 5 of
 * examples/operator-hard-stop-v0.5.md, R237), checked over every surface an agent credential
 * reaches: the Hub's described API (every operation an agent key may call), the `ma2h` command's
 * help (its whole command list) and the MCP server's tools (pinned in packages/agent/test/mcp.test.ts). The
 * running Hub's refusals of agent keys on stop and resume are in test/session-stop.test.ts.
 */
// covers: packages/protocol/src/routes.ts, lib/openapi/document.ts, packages/agent/src/cli/main.ts
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../lib/openapi/document";
import { mainHelp } from "../packages/agent/src/cli/main";

const RESUME_LIKE = /resume|unstop|un-stop|lift|unblock|reinstate|restart/i;

type Operation = { summary?: string; description?: string; security?: Record<string, unknown>[] };

function operations(): { path: string; method: string; op: Operation }[] {
  const paths = openApiDocument().paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );
}

const agentMayCall = (op: Operation) =>
  (op.security ?? []).some((req) => Object.keys(req).some((scheme) => scheme.startsWith("agentKey")));

describe("no resume for agents (§16.4.1)", () => {
  it("the only resume operation is for people; no operation an agent key may call is resume-like", () => {
    const ops = operations();
    const resume = ops.filter((o) => RESUME_LIKE.test(o.path));
    expect(resume.map((o) => `${o.method} ${o.path}`)).toEqual(["post /v1/agents/{agent_id}/resume"]);
    expect(agentMayCall(resume[0]!.op)).toBe(false);
    const forAgents = ops.filter((o) => agentMayCall(o.op));
    expect(forAgents.length).toBeGreaterThan(5);
    for (const o of forAgents) expect(`${o.method} ${o.path} ${o.op.summary ?? ""}`).not.toMatch(RESUME_LIKE);
  });

  it("the ma2h command offers nothing resume-like, and says so", () => {
    const help = mainHelp();
    // The command list: "  <name>   <what it does>" lines.
    const commands = [...help.matchAll(/^ {2}([a-z][a-z ]*?) {2,}/gmu)].map((m) => m[1]!);
    expect(commands).toContain("notify");
    expect(commands.length).toBeGreaterThan(5);
    for (const c of commands) expect(c).not.toMatch(RESUME_LIKE);
    expect(help).toMatch(/No command lifts an operator's stop/);
  });
});
