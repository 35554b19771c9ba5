/**
 * Install instructions a user can follow today: while `@ma2h/agent` has not been published (its
 * package.json's `registryPublished` is not a version), every command that would install it from the
 * npm registry (`npm install @ma2h/agent`, `npx -y @ma2h/agent …`, an MCP configuration running
 * `npx -y @ma2h/agent`, the pnpm/yarn/bun forms) must have the note "not on the npm registry yet"
 * within a few lines, in every tracked doc, example and configuration. JSON has no room for a note,
 * so a registry command there always fails. Pure file reads; the checker is first run on made-up
 * texts, so a scan that finds nothing cannot pass.
 */
// covers: docs/, examples/, README.md, packages/agent/package.json
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const NOTE = "not on the npm registry yet";
/** The note, however a formatter wrapped it. */
const NOTED = new RegExp(NOTE.replaceAll(" ", "\\s+"), "u");
/** Lines above and below a command that the note may be on. */
const REACH = 6;

const REGISTRY_COMMANDS = [
  /\bnpm\s+(?:install|i|add)\b[^\n]*?(?<![\w./-])@ma2h\/agent\b/u,
  /\bnpx\s+(?:(?:-y|--yes|-p|--package)\s+)*@ma2h\/agent\b/u,
  /\b(?:pnpm|yarn|bun)\s+(?:add|dlx|x|global\s+add)\b[^\n]*?@ma2h\/agent\b/u,
  /\bbunx\s+@ma2h\/agent\b/u,
  /"(?:-y|--yes)"\s*,\s*"@ma2h\/agent/u,
];

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** The registry install commands in `text` with no note nearby. */
function unnotedInstalls(file: string, text: string): Finding[] {
  const lines = text.split("\n");
  const found: Finding[] = [];
  for (const [i, line] of lines.entries()) {
    if (!REGISTRY_COMMANDS.some((re) => re.test(line))) continue;
    const near = lines.slice(Math.max(0, i - REACH), i + REACH + 1).join("\n");
    if (!NOTED.test(near)) found.push({ file, line: i + 1, text: line.trim() });
  }
  return found;
}

/** Tracked docs, examples and configurations (tests and lock files hold no instructions). */
function instructionFiles(): string[] {
  const tracked = execFileSync("git", ["ls-files"], { cwd: repoRoot, encoding: "utf8" }).split("\n");
  return tracked.filter(
    (f) =>
      f !== "" &&
      !f.startsWith("test/") &&
      !f.startsWith("e2e/") &&
      !f.endsWith("package-lock.json") &&
      (/\.(md|json|ya?ml|sh)$/u.test(f) || f.startsWith("examples/")),
  );
}

const agentPackage = JSON.parse(readFileSync(join(repoRoot, "packages/agent/package.json"), "utf8")) as {
  registryPublished?: unknown;
};
const published = typeof agentPackage.registryPublished === "string";

describe("install instructions while @ma2h/agent is not on the registry", () => {
  it("the checker finds a bare registry command and accepts one with the note", () => {
    expect(unnotedInstalls("a.md", "Install it:\n\n    npm install @ma2h/agent\n")).toHaveLength(1);
    expect(unnotedInstalls("b.md", "run `npx -y @ma2h/agent mcp`")).toHaveLength(1);
    expect(unnotedInstalls("c.json", '{"command":"npx","args":["-y", "@ma2h/agent", "mcp"]}')).toHaveLength(1);
    expect(unnotedInstalls("d.md", "pnpm add @ma2h/agent@0.6")).toHaveLength(1);
    expect(unnotedInstalls("e.md", `It is ${NOTE}.\n\n    npm install -g @ma2h/agent   # once it is\n`)).toEqual([]);
    // Installing the packed tarball, or naming the package, is not a registry install.
    expect(
      unnotedInstalls("f.md", 'npm install ./ma2h-agent-0.6.0.tgz\nimport { Ma2hClient } from "@ma2h/agent";'),
    ).toEqual([]);
  });

  it("the marker is false until a release publishes the package, then that release's version", () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, "packages/agent/package.json"), "utf8")) as {
      version: string;
    };
    expect(agentPackage.registryPublished).toBe(published ? version : false);
  });

  it("every tracked doc, example and configuration notes it beside each registry command", () => {
    const files = instructionFiles();
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/mcp.md", "examples/mcp/.mcp.json"]));
    const findings = files.flatMap((f) => unnotedInstalls(f, readFileSync(join(repoRoot, f), "utf8")));
    // Once published, a registry command is an instruction a user can follow: no note needed.
    expect(published ? [] : findings).toEqual([]);
  });
});
