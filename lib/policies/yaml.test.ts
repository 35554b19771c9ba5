// covers: lib/policies/yaml.ts
import { describe, expect, it } from "vitest";
import { PolicyFileSchema } from "./model";
import { formatProblems, locateProblems, parsePolicyYaml, policyToYaml } from "./yaml";

const GOOD = `version: 1
groups:
  sre: [human:alice, human:bob]
rules:
  - name: prod-deploys
    match: { agent: "deploybot/*", tags_any: [prod], verb: ask, mode: [confirm, select] }
    assign: [group:sre, human:carol]
    email_answers: false
`;

describe("policy files", () => {
  it("parses the documented shape", () => {
    const r = parsePolicyYaml(GOOD);
    expect(r.ok && r.file.rules[0]).toEqual({
      name: "prod-deploys",
      match: { agent: "deploybot/*", tags_any: ["prod"], verb: ["ask"], mode: ["confirm", "select"] },
      assign: ["group:sre", "human:carol"],
      email_answers: false,
    });
  });

  it("refuses a bad file whole, every problem with its line and column", () => {
    const bad = `version: 1
rules:
  - name: prod-deploys
    match: { agent: "deploybot/*", tagz: [prod] }
    assign: [group:sre, carol]
  - name: prod-deploys
    assign: []
    escalate: soon
`;
    const r = parsePolicyYaml(bad);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(formatProblems(r.problems, "p.yaml").split("\n")).toEqual([
      'p.yaml:4:36: unknown key "tagz"',
      "p.yaml:5:25: use human:<handle> or group:<name>",
      "p.yaml:6:11: a second rule named prod-deploys",
      "p.yaml:7:13: Too small: expected array to have >=1 items",
      'p.yaml:8:5: unknown key "escalate"',
    ]);
  });

  it("reports YAML syntax errors and a wrong version on their lines", () => {
    const syntax = parsePolicyYaml("version: 1\nrules:\n  - name: [unclosed\n");
    expect(syntax.ok).toBe(false);
    expect(!syntax.ok && syntax.problems[0]?.line).toBeGreaterThanOrEqual(3);
    const version = parsePolicyYaml("version: 2\nrules: []\n");
    expect(!version.ok && version.problems.map((p) => [p.line, p.col])).toEqual([[1, 10]]);
    const dup = parsePolicyYaml("version: 1\nversion: 1\n");
    expect(dup.ok).toBe(false);
  });

  it("places the apply's problems (paths) on the file's lines", () => {
    expect(locateProblems(GOOD, [{ path: ["rules", 0, "assign", 1], message: "human:carol is not a member" }])).toEqual(
      [{ path: ["rules", 0, "assign", 1], message: "human:carol is not a member", line: 7, col: 25 }],
    );
  });

  it("an export parses back to the same policy", () => {
    const file = PolicyFileSchema.parse({
      version: 1,
      groups: { sre: ["human:alice"] },
      rules: [{ name: "r", match: { labels: { env: "prod" }, priority: "high" }, assign: ["group:sre"] }],
    });
    const text = policyToYaml(file, "acme's approval policy\nrevision 3");
    expect(text.startsWith("# acme's approval policy\n# revision 3\nversion: 1\n")).toBe(true);
    const back = parsePolicyYaml(text);
    expect(back.ok && back.file).toEqual(file);
  });
});
