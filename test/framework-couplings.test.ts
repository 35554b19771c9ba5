/**
 * The two places the Hub leans on Next.js and React internals, each held here so that an upgrade
 * that moves them fails loudly rather than quietly changing behaviour:
 * - server/route-preload.ts reaches Next's production server through the custom-server wrapper and
 *   calls `unstable_preloadEntries` (the start-up preload, moved after listen);
 * - server/action-reply.ts checks a Server Action body against React's reply format, kind by kind:
 *   every `$` kind the decoder Next ships knows must be one the checker classifies, and bodies the
 *   checker passes must decode in that decoder.
 */
// covers: server/route-preload.ts, server/action-reply.ts
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import next from "next";
import { beforeAll, describe, expect, it } from "vitest";
import { actionReplyProblem, CLASSIFIED_KINDS } from "../server/action-reply";
import { routePreloader } from "../server/route-preload";
import { hubEnv, repoRoot } from "./support/hub";

const DECODER = join(
  repoRoot,
  "node_modules/next/dist/compiled/react-server-dom-webpack/cjs/react-server-dom-webpack-server.node.production.js",
);

beforeAll(() => {
  for (const [k, v] of Object.entries(hubEnv("postgresql://postgres@127.0.0.1:5432/unused", 1))) process.env[k] ??= v;
});

describe("Next's route preload (server/route-preload.ts)", () => {
  it("is reachable on this Next as the Hub calls it", async () => {
    // As server/web.ts makes it, over the built app (`npm run build`).
    const app = next({ dev: false, dir: repoRoot });
    await app.prepare();
    try {
      const preload = await routePreloader(app);
      expect(preload, "Next no longer has server.getServer().unstable_preloadEntries").toBeTypeOf("function");
    } finally {
      await app.close();
    }
  }, 60_000);
});

describe("React's Server Action reply format (server/action-reply.ts)", () => {
  it("every kind the shipped decoder knows is one the checker classifies, and no other", () => {
    const source = readFileSync(DECODER, "utf8");
    const start = source.indexOf("function parseModelString(");
    expect(start, "React's decoder has no parseModelString").toBeGreaterThan(-1);
    const end = source.indexOf("\nfunction ", start + 1);
    const kinds = new Set([...source.slice(start, end).matchAll(/case "(.)"/g)].map((m) => m[1] as string));
    expect([...kinds].sort()).toEqual([...CLASSIFIED_KINDS].sort());
  });

  it("the bodies the checker passes decode in React's decoder", () => {
    const samples: [string, Record<string, string> | null][] = [
      ['["plain", 1, true, null]', null],
      ['["$D2020-01-01T00:00:00.000Z", "$n12345", "$undefined", "$NaN", "$-0", "$Infinity", "$$dollar"]', null],
      ['["$Q1", "$W2", "$@3"]', { 1: '[["k", "v"]]', 2: '["a"]', 3: '{"x": 1}' }],
      // An object met twice is written once and referred back to by its path: within the root part
      // (a form state holding one list in two places), and into an earlier part.
      ['[{"routing":{"eligible":["a","b"]},"eligible":"$0:0:routing:eligible"},"x"]', null],
      ['["$@1", "$1:k:0"]', { 1: '{"k":[{"v":1}]}' }],
    ];
    for (const [root, fields] of samples) {
      const map = fields ? new Map(Object.entries(fields)) : null;
      // The root comes last in the field order the checker sees: React writes parts before field 0.
      const ordered = map ? new Map([...map, ["0", root] as [string, string]]) : null;
      expect(actionReplyProblem(root, ordered), root).toBeNull();
    }
    // React's server build loads only under the react-server condition: decode in a child process.
    const script = `
      const { decodeReply } = require(${JSON.stringify(DECODER)});
      const samples = ${JSON.stringify(samples)};
      Promise.all(samples.map(([root, fields]) => {
        let body = root;
        if (fields) { body = new FormData(); for (const [k, v] of Object.entries(fields)) body.append(k, v); body.append("0", root); }
        return Promise.race([decodeReply(body, {}), new Promise((_, no) => setTimeout(() => no(new Error("hangs")), 3000))])
          .then((v) => Array.isArray(v) ? "ok" : "not a list", (e) => "error: " + e.message);
      })).then((r) => console.log(JSON.stringify(r)));`;
    const out = execFileSync(process.execPath, ["--conditions=react-server", "-e", script], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, NODE_ENV: "production" },
    });
    expect(JSON.parse(out.trim().split("\n").at(-1) as string)).toEqual(samples.map(() => "ok"));
  }, 30_000);
});
