/**
 * What the web and the worker load when they start: the packages their static imports reach
 * (`import()` edges and `import type` excluded — test/support/import-graph.ts). The SDKs of features a
 * Hub may never use load on first use (docs/decisions/operations-and-performance.md, "Optional SDKs
 * load on first use"): every web start paid for them — over a second of CPU on the 2-core CI box,
 * and a test run starts over a hundred webs. A static import of one of them from anything the entry
 * reaches fails here, with the chain that reaches it.
 *
 * And what an `ma2h-hub` listing loads: the modules its command imports reach no Prisma client
 * (the generated client, its runtime, the adapter) — loading it and compiling its WebAssembly query
 * compiler for one SELECT was most of the command's 0.8 s ("`ma2h-hub` loads only what a command
 * needs"); such a command reads on owned statements on the pool (lib/db-pool.ts).
 */
// covers: server/web.ts, workers/main.ts, lib/queue/producer.ts, lib/telemetry/tracing.ts, lib/principals/key-list.ts, lib/principals/binding-list.ts
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/hub";
import { type Graph, importGraph, resolveSpecifier } from "./support/import-graph";

/** Packages neither entry may load at start. */
const ON_FIRST_USE = [
  "@modelcontextprotocol/sdk", // POST /mcp
  "@opentelemetry/sdk-trace", // tracing, with an OTLP endpoint
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/resources",
  "nodemailer", // the first mail
  "web-push", // the first browser push, or the Hub's VAPID keys
  "@slack/web-api", // the first Slack call
  "unified", // the mail composer's Markdown
  "remark-parse",
];
/** And the web alone: the worker runs the queues and the A2A push at once. */
const WEB_ON_FIRST_USE = [...ON_FIRST_USE, "@a2a-js/sdk", "bullmq"];

const packageOf = (spec: string) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");

/** Each package the static closure of `entry` reaches, with one chain of files that reaches it. */
function staticPackages(graph: Graph, entry: string): Map<string, string[]> {
  const via = new Map<string, string | null>([[entry, null]]);
  const found = new Map<string, string[]>();
  const queue = [entry];
  const chain = (file: string) => {
    const out: string[] = [];
    for (let f: string | null | undefined = file; f; f = via.get(f)) out.unshift(f);
    return out;
  };
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const edge of graph.get(file) ?? []) {
      if (edge.typeOnly || edge.dynamic) continue;
      if (graph.has(edge.to)) {
        if (!via.has(edge.to)) {
          via.set(edge.to, file);
          queue.push(edge.to);
        }
      } else if (!edge.to.startsWith("node:") && !/\.(m?[jt]sx?)$/.test(edge.to)) {
        // (a repo file outside the scanned sources, e.g. the generated Prisma client, is not a package)
        const name = packageOf(edge.to);
        if (!found.has(name)) found.set(name, [...chain(file), name]);
      }
    }
  }
  return found;
}

describe("what a process loads at start", () => {
  const graph = importGraph();

  it("the scan sees what the web must load: Next, the database driver, zod", () => {
    const web = staticPackages(graph, "server/web.ts");
    for (const name of ["next", "pg", "@prisma/adapter-pg", "zod"]) expect([...web.keys()]).toContain(name);
    // a package of the web's list that the worker does import statically (its A2A push) is seen
    expect(staticPackages(graph, "workers/main.ts").get("@a2a-js/sdk")?.at(-2)).toMatch(/^lib\/a2a\//);
    // and an import() is not a start-up load: the MCP route loads the SDK in its handler
    expect(graph.get("lib/http/routes/mcp.ts")).toContainEqual(
      expect.objectContaining({ to: "lib/mcp/server.ts", dynamic: true }),
    );
  });

  for (const [entry, lazy] of [
    ["server/web.ts", WEB_ON_FIRST_USE],
    ["workers/main.ts", ON_FIRST_USE],
  ] as const) {
    it(`${entry} reaches none of ${lazy.join(", ")} by a static import`, () => {
      const reached = staticPackages(graph, entry);
      expect(lazy.filter((name) => reached.has(name)).map((name) => reached.get(name)?.join(" → "))).toEqual([]);
    });
  }
});

/** The `ma2h-hub` commands that only read, each on owned statements: none may load Prisma's client. */
const LIGHT_COMMANDS = ["key list", "binding list"];
/** What loading Prisma's client means: the generated client (or any generated module) and its packages. */
const PRISMA = (to: string) => to.startsWith("lib/generated/") || /^@prisma\/(client|adapter-pg)(\/|$)/.test(to);

/** The modules a command of cli/commands.ts loads when it runs: the `import()`s in its entry. */
function commandImports(command: string): string[] {
  const source = readFileSync(join(repoRoot, "cli/commands.ts"), "utf8");
  const start = source.indexOf(`\n  ${JSON.stringify(command)}: {`);
  if (start < 0) throw new Error(`no "${command}" entry in cli/commands.ts`);
  const rest = source.slice(start + 1);
  // The entry ends where the next one of COMMANDS (a key, or a spread) begins at the same depth.
  const entry = rest.slice(0, rest.slice(1).search(/\n {2}("|\.\.\.)/) + 1);
  return [...entry.matchAll(/import\(\s*"([^"]+)"\s*\)/g)].map(
    (m) => resolveSpecifier("cli/commands.ts", m[1] as string) ?? (m[1] as string),
  );
}

/** One chain of static imports from `entry` to something `hit` matches, or null. */
function staticChain(graph: Graph, entry: string, hit: (to: string) => boolean): string[] | null {
  const via = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  const chain = (file: string) => {
    const out: string[] = [];
    for (let f: string | null | undefined = file; f; f = via.get(f)) out.unshift(f);
    return out;
  };
  if (hit(entry)) return [entry];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const edge of graph.get(file) ?? []) {
      if (edge.typeOnly || edge.dynamic) continue;
      if (hit(edge.to)) return [...chain(file), edge.to];
      if (graph.has(edge.to) && !via.has(edge.to)) {
        via.set(edge.to, file);
        queue.push(edge.to);
      }
    }
  }
  return null;
}

describe("what an ma2h-hub listing loads", () => {
  const graph = importGraph();

  it("the scan sees a command's imports and the way to Prisma's client", () => {
    expect(commandImports("key rotate")).toEqual(["lib/principals/api-keys.ts"]);
    expect(commandImports("key list")).toEqual(["lib/principals/key-list.ts"]);
    // a command that writes does load the client: through lib/db.ts
    expect(staticChain(graph, "lib/principals/api-keys.ts", PRISMA)).toContain("lib/db.ts");
  });

  it("the CLI itself, and what closes its connections, load no Prisma client", () => {
    for (const entry of ["cli/ma2h-hub.ts", "lib/db-pool.ts"]) {
      expect(staticChain(graph, entry, PRISMA)?.join(" → ") ?? null, entry).toBeNull();
    }
    expect(graph.get("cli/ma2h-hub.ts")).toContainEqual(
      expect.objectContaining({ to: "lib/db-pool.ts", dynamic: true }),
    );
  });

  for (const command of LIGHT_COMMANDS) {
    it(`ma2h-hub ${command} reaches no Prisma client by a static import`, () => {
      const imports = commandImports(command);
      expect(imports.length, `${command} imports its domain module when it runs`).toBeGreaterThan(0);
      const reached = imports.map((file) => staticChain(graph, file, PRISMA)?.join(" → ") ?? null);
      expect(reached.filter((chain) => chain !== null)).toEqual([]);
    });
  }
});
