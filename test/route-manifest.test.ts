/**
 * The `/v1` route manifest (lib/http/routes/) is the one table of protocol routes: every
 * `app/v1/…/route.ts` exports exactly the handlers its entries give it (the rest the §8.5 `404`),
 * every entry has its route file and its OpenAPI operation with the entry's credential, and every
 * `/v1` operation of the document is an entry. `OPTIONS` answers the `Allow` of the table. The
 * manifest also mounts `/mcp` (POST only), outside the table and the document.
 */
// covers: lib/http/routes/index.ts, packages/protocol/src/routes.ts, app/v1/, app/mcp/route.ts, app/a2a/route.ts
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { noSuchEndpoint } from "../lib/http/handler";
import {
  A2A_MANIFEST,
  type Dispatch,
  MCP_PATH,
  ROUTE_FILE_METHODS,
  V1_HANDLERS,
  V1_MANIFEST,
  type V1RouteModule,
} from "../lib/http/routes";
import { mcpRoute } from "../lib/http/routes/mcp";
import { appFolderOf, templatePattern } from "@ma2h/protocol/routes";
import { openApiDocument } from "../lib/openapi/document";
import { hubEnv, repoRoot } from "./support/hub";

type Obj = Record<string, unknown>;

// The handlers read the Hub's configuration (limits) before anything else; no database is reached.
beforeAll(() => {
  for (const [k, v] of Object.entries(hubEnv("postgresql://postgres@127.0.0.1:5432/unused", 1))) process.env[k] ??= v;
});

/** Every route.ts under app/v1, as its folder relative to app/v1 (`messages/[id]`, `` for /v1). */
function routeFolders(): string[] {
  const root = join(repoRoot, "app/v1");
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs)) {
      const child = join(abs, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (name === "route.ts") out.push(relative(root, abs));
    }
  };
  walk(root);
  return out.sort();
}

const load = async (folder: string) =>
  (await import(join(repoRoot, "app/v1", folder, "route.ts"))) as V1RouteModule & Obj;

describe("the /v1 route manifest", () => {
  it("lists each method and path once, each with its own handler", () => {
    const keys = V1_MANIFEST.map((e) => `${e.method} ${e.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    const handlers = V1_MANIFEST.map((e) => e.handler);
    expect(new Set(handlers).size).toBe(handlers.length);
    expect(handlers).not.toContain(noSuchEndpoint);
    expect(Object.keys(V1_HANDLERS).sort()).toEqual(V1_MANIFEST.map((e) => e.operationId).sort());
    // The lane's three: what server/protocol-lane.ts serves past Next's router.
    expect(V1_MANIFEST.filter((e) => e.lane).map((e) => `${e.method} ${e.path}`)).toEqual([
      "POST /v1/messages",
      "GET /v1/messages/{id}",
      "POST /v1/messages/{id}/resolve",
    ]);
  });

  it("every route file exports exactly its entries' handlers, and every other verb is the 404 envelope", async () => {
    const folders = routeFolders();
    expect(folders).toContain("[[...path]]");
    // Every entry's folder has its route file.
    for (const e of V1_MANIFEST) expect(folders, `${e.method} ${e.path}`).toContain(appFolderOf(e.path));
    for (const folder of folders) {
      const mod = await load(folder);
      expect(Object.keys(mod).sort(), folder).toEqual([...ROUTE_FILE_METHODS, "dynamic"].sort());
      expect(mod.dynamic).toBe("force-dynamic");
      const entries = V1_MANIFEST.filter((e) => appFolderOf(e.path) === folder);
      for (const method of ["PUT", "PATCH"] as const) expect(mod[method], `${folder} ${method}`).toBe(noSuchEndpoint);
      if (entries.length === 0) expect(mod.OPTIONS, `${folder} OPTIONS`).toBe(noSuchEndpoint);
      else expect(mod.OPTIONS, `${folder} OPTIONS`).not.toBe(noSuchEndpoint);
      for (const method of ["GET", "POST", "DELETE"] as const) {
        const serving = entries.filter((e) => e.method === method);
        const where = `${folder} ${method}`;
        if (serving.length === 0) expect(mod[method], where).toBe(noSuchEndpoint);
        else if (!folder.includes("[...")) {
          expect(serving, where).toHaveLength(1);
          expect(mod[method], where).toBe(serving[0]?.handler);
        } else expect((mod[method] as Dispatch).serves, where).toEqual(serving);
      }
    }
  });

  it("a catch-all picks the entry by path: `me` before an agent id, which may hold `/` encoded or not", () => {
    const at = (path: string, method = "GET") =>
      V1_MANIFEST.filter((e) => e.method === method && templatePattern(e.path).test(path)).map((e) => e.operationId);
    expect(at("/v1/agents/me")[0]).toBe("getAgentSelf");
    expect(at("/v1/agents/me/presence")).toEqual(["getPresence"]);
    expect(at("/v1/agents/deploybot%2Fdev/presence")).toEqual(["getPresence"]);
    expect(at("/v1/agents/deploybot/dev/presence/")).toEqual(["getPresence"]);
    expect(at("/v1/agents/deploybot/dev/stop", "POST")).toEqual(["stopAgent"]);
    expect(at("/v1/agents/deploybot/dev/resume", "POST")).toEqual(["resumeAgent"]);
    expect(at("/v1/agents/deploybot")).toEqual([]);
    expect(at("/v1/messages/a/b")).toEqual([]);
  });

  it("every entry has its OpenAPI operation with the entry's credential, and every /v1 operation is an entry", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, Obj>>;
    const security: Record<string, string[]> = {
      agent: ["agentKey", "agentKeyHeader"],
      person: ["personalAccessToken", "personalAccessTokenHeader"],
      "agent or person": ["agentKey", "agentKeyHeader", "personalAccessToken", "personalAccessTokenHeader"],
      none: [],
    };
    for (const e of V1_MANIFEST) {
      const op = paths[e.path]?.[e.method.toLowerCase()];
      expect(op, `${e.method} ${e.path}`).toBeDefined();
      expect(op?.operationId).toBe(e.operationId);
      expect(((op?.security ?? []) as Obj[]).flatMap((s) => Object.keys(s))).toEqual(security[e.credential]);
    }
    const documented = Object.entries(paths)
      .filter(([p]) => p.startsWith("/v1/"))
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.sort()).toEqual(V1_MANIFEST.map((e) => `${e.method} ${e.path}`).sort());
  });

  it("OPTIONS answers 204 with the table's Allow for the path; a path it does not have is the 404 envelope", async () => {
    const options = async (folder: string, path: string) => {
      const mod = await load(folder);
      const res = await mod.OPTIONS(new Request(`http://hub.test${path}`, { method: "OPTIONS" }), {
        params: Promise.resolve({}),
      });
      return { status: res.status, allow: res.headers.get("allow"), body: await res.text() };
    };
    expect(await options("messages", "/v1/messages")).toEqual({ status: 204, allow: "OPTIONS, POST", body: "" });
    expect(await options("messages/[id]", "/v1/messages/msg_1")).toMatchObject({ allow: "GET, HEAD, OPTIONS" });
    expect(await options("sessions", "/v1/sessions")).toMatchObject({ allow: "GET, HEAD, OPTIONS, POST" });
    expect(await options("sessions/[id]", "/v1/sessions/s")).toMatchObject({ allow: "DELETE, GET, HEAD, OPTIONS" });
    expect(await options("agents/[...path]", "/v1/agents/me")).toMatchObject({ allow: "GET, HEAD, OPTIONS" });
    expect(await options("agents/[...path]", "/v1/agents/a/b/stop")).toMatchObject({ allow: "OPTIONS, POST" });
    for (const [folder, path] of [
      ["agents/[...path]", "/v1/agents/a"],
      ["[[...path]]", "/v1/nope"],
    ] as const) {
      const res = await options(folder, path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body)).toEqual({ error: { code: "not_found", message: "no such endpoint" } });
    }
  });

  it("/mcp is mounted from the manifest: POST is the MCP handler, GET and DELETE are 405 with Allow", async () => {
    const mod = (await import(join(repoRoot, "app/mcp/route.ts"))) as V1RouteModule & Obj;
    expect(Object.keys(mod).sort()).toEqual([...ROUTE_FILE_METHODS, "dynamic"].sort());
    expect(mod.dynamic).toBe("force-dynamic");
    expect(mod.POST).toBe(mcpRoute);
    const args = { params: Promise.resolve({}) };
    for (const method of ["GET", "DELETE", "PUT", "PATCH"] as const) {
      const res = await mod[method](new Request(`http://hub.test${MCP_PATH}`, { method }), args);
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow"), method).toBe("OPTIONS, POST");
    }
    const options = await mod.OPTIONS(new Request(`http://hub.test${MCP_PATH}`, { method: "OPTIONS" }), args);
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("OPTIONS, POST");
    // Not a /v1 route: neither in the table nor in the OpenAPI document.
    expect(V1_MANIFEST.some((e) => e.path === MCP_PATH)).toBe(false);
    expect(Object.keys(openApiDocument().paths as Obj)).not.toContain(MCP_PATH);
  });
});

describe("the A2A routes of the manifest", () => {
  const files: Record<string, string> = {
    "/a2a": "app/a2a/route.ts",
    "/.well-known/agent-card.json": "app/a2a/agent-card/route.ts",
  };

  it("each route file exports its entries' handlers, the 404 envelope for every other verb, and OPTIONS", async () => {
    expect(A2A_MANIFEST.map((e) => `${e.method} ${e.path}`)).toEqual(["POST /a2a", "GET /.well-known/agent-card.json"]);
    // Outside /v1 and its OpenAPI document: the A2A binding is described by the Agent Card.
    expect(Object.keys(openApiDocument().paths as object)).not.toContain("/a2a");
    for (const [path, file] of Object.entries(files)) {
      const mod = (await import(join(repoRoot, file))) as V1RouteModule & Obj;
      expect(Object.keys(mod).sort(), file).toEqual([...ROUTE_FILE_METHODS, "dynamic"].sort());
      expect(mod.dynamic).toBe("force-dynamic");
      for (const method of ["GET", "POST", "DELETE", "PUT", "PATCH"] as const) {
        const entry = A2A_MANIFEST.find((e) => e.path === path && e.method === method);
        expect(mod[method], `${file} ${method}`).toBe(entry ? entry.handler : noSuchEndpoint);
      }
      const res = await mod.OPTIONS(new Request(`http://hub.test${path}`, { method: "OPTIONS" }), {
        params: Promise.resolve({}),
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("allow")).toBe(path === "/a2a" ? "OPTIONS, POST" : "GET, HEAD, OPTIONS");
    }
  });
});
