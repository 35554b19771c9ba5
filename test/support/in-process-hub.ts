/**
 * The `/v1` API served inside the test process: a loopback HTTP server that hands each request to
 * the same route-file exports Next serves (`v1RouteModule(folder)`, lib/http/routes) with the params
 * Next would give them, and answers every other path with the §8.5 `404` envelope. For the test files
 * that check what the API answers — statuses, envelopes, headers a handler sets — and need no page,
 * no sign-in, no worker and nothing of server/web.ts's socket handling (request-head guards, the
 * transport gate, long-poll shutdown): they run in the `db` tier, with no Hub process to start.
 */
import http from "node:http";
import { Readable } from "node:stream";
import { resetEnvCache } from "@/lib/env";
import { noSuchEndpoint } from "@/lib/http/handler";
import { V1_MANIFEST, v1RouteModule } from "@/lib/http/routes";
import { appFolderOf } from "@ma2h/protocol/routes";
import { hubEnv } from "./hub";

type Module = ReturnType<typeof v1RouteModule>;
type Params = Record<string, string | string[]>;

/** Each app folder once, with a matcher that yields the params Next derives from its segments. */
const FOLDERS = [...new Set(V1_MANIFEST.map((e) => appFolderOf(e.path)))].map((folder) => {
  const segments = folder.split("/");
  const match = (pathname: string): Params | null => {
    const parts = pathname
      .replace(/^\/v1\//, "")
      .replace(/\/$/, "")
      .split("/");
    const params: Params = {};
    for (const [i, segment] of segments.entries()) {
      const catchAll = /^\[\.\.\.(\w+)\]$/.exec(segment);
      if (catchAll) {
        const rest = parts.slice(i);
        if (rest.length === 0 || rest.some((p) => p === "")) return null;
        params[catchAll[1] as string] = rest.map((p) => decodeURIComponent(p));
        return params;
      }
      const part = parts[i];
      if (part === undefined || part === "") return null;
      const dynamic = /^\[(\w+)\]$/.exec(segment);
      if (dynamic) params[dynamic[1] as string] = decodeURIComponent(part);
      else if (part !== segment) return null;
    }
    return parts.length === segments.length ? params : null;
  };
  return { module: v1RouteModule(folder), match };
});

function route(method: string, pathname: string): { handler: Module[keyof Module]; params: Params } {
  for (const folder of FOLDERS) {
    const params = folder.match(pathname);
    if (params) {
      const handler = folder.module[method as keyof Module] ?? noSuchEndpoint;
      return { handler, params };
    }
  }
  return { handler: noSuchEndpoint, params: {} };
}

export interface InProcessHub {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the server on a free loopback port. `env` is the Hub's environment (test/support/hub.ts
 * hubEnv) applied to this process before lib/ first reads it, as a Hub process would have it.
 */
export async function startInProcessHub(
  databaseUrl: string,
  env: Record<string, string | undefined> = {},
): Promise<InProcessHub> {
  const server = http.createServer((req, res) => {
    const target = req.url ?? "/";
    const url = new URL(target, publicUrl);
    const { handler, params } = route(req.method ?? "GET", url.pathname);
    const aborted = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(url, {
      method: req.method,
      headers,
      signal: aborted.signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
    } as RequestInit);
    void handler(request, { params: Promise.resolve(params) } as never)
      .then(async (response: Response) => {
        const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
        const out: Record<string, string | string[]> = {};
        response.headers.forEach((value, name) => {
          if (name !== "set-cookie") out[name] = value;
        });
        const cookies = response.headers.getSetCookie();
        if (cookies.length > 0) out["set-cookie"] = cookies;
        if (body !== null) out["content-length"] = String(body.length);
        res.writeHead(response.status, out);
        res.end(body ?? undefined);
      })
      .catch((err: Error) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "internal_error", message: err.message } }));
      });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const publicUrl = `http://127.0.0.1:${port}`;
  for (const [name, value] of Object.entries(hubEnv(databaseUrl, port, env))) {
    if (name === "PATH" || name === "HOME") continue;
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnvCache(); // read afresh, with the port now known (MA2H_PUBLIC_URL)
  return {
    url: publicUrl,
    port,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
