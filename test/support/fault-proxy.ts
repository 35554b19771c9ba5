/**
 * A loopback HTTP proxy in front of the real Hub that misbehaves on cue, for the SDK's transport
 * tests: per request, a rule decides whether to forward, answer a 5xx or a 429 itself, drop the
 * connection before forwarding, or forward and then drop the connection instead of returning the
 * Hub's answer (the "lost 202"), forward after a delay (a slow Hub), or forward and rewrite the Hub's answer body (tampering in transit).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";

export type Fault =
  | { kind: "forward"; delayMs?: number } // delayMs: held that long before it is forwarded (a slow Hub)
  | { kind: "status"; status: number; body?: string; headers?: Record<string, string> }
  | { kind: "drop" } // the connection is destroyed; the Hub never sees the request
  | { kind: "lose-reply" }; // the Hub handles the request; its answer never reaches the client

export interface SeenRequest {
  method: string;
  path: string;
  body: string;
  at: number;
  fault: Fault["kind"];
  /** The status the Hub answered, when forwarded. */
  status?: number;
}

export interface FaultProxy {
  url: string;
  /** Every request, in order, with the rule applied to it. */
  seen: SeenRequest[];
  /** Decides per request (default: forward). */
  rule: (req: SeenRequest, index: number) => Fault;
  /** Rewrites a forwarded answer's body before it reaches the client (default: unchanged). */
  rewrite: (req: SeenRequest, body: string) => string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const proxy: FaultProxy = {
    url: "",
    seen: [],
    rule: () => ({ kind: "forward" }),
    rewrite: (_req, body) => body,
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const seen: SeenRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      body,
      at: Date.now(),
      fault: "forward",
    };
    const fault = proxy.rule(seen, proxy.seen.length);
    seen.fault = fault.kind;
    proxy.seen.push(seen);
    if (fault.kind === "drop") {
      req.socket.destroy();
      return;
    }
    if (fault.kind === "status") {
      res.writeHead(fault.status, { "content-type": "application/json", ...(fault.headers ?? {}) });
      res.end(fault.body ?? "");
      return;
    }
    if (fault.kind === "forward" && fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host") headers[k] = v;
    try {
      const upstream = await fetch(target + seen.path, {
        method: seen.method,
        headers,
        body: seen.method === "GET" || seen.method === "HEAD" ? undefined : body,
      });
      const text = await upstream.text();
      seen.status = upstream.status;
      if (fault.kind === "lose-reply") {
        req.socket.destroy();
        return;
      }
      const out: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(k)) out[k] = v;
      });
      res.writeHead(upstream.status, out);
      res.end(proxy.rewrite(seen, text));
    } catch {
      req.socket.destroy();
    }
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const addr = server.address();
  proxy.url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  proxy.close = () =>
    new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return proxy;
}
