/**
 * What the web and the worker load when they start: the packages their static imports reach
 * (`import()` edges and `import type` excluded — test/support/import-graph.ts). The SDKs of features a
 * Hub may never use load on first use (docs/decisions/operations-and-performance.md, "Optional SDKs
 * load on first use"): every web start paid for them — over a second of CPU on the 2-core CI box,
 * and a test run starts over a hundred webs. A static import of one of them from anything the entry
 * reaches fails here, with the chain that reaches it.
 */
// covers: server/web.ts, workers/main.ts, lib/queue/producer.ts, lib/telemetry/tracing.ts
import { describe, expect, it } from "vitest";
import { type Graph, importGraph } from "./support/import-graph";

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
