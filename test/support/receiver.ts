/**
 * Loopback push receivers for the delivery tests: an HTTP listener that records every request
 * (arrival time, path with query, headers, raw body) and answers from a per-path script — a status,
 * a redirect, a dropped connection, or a slow answer — falling back to 200; and a bare TCP trap
 * that counts connections, proving that a refused destination was never even dialled.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import net from "node:net";

export interface Received {
  /** Date.now() when the body had fully arrived. */
  at: number;
  method: string;
  /** Path and query exactly as requested. */
  url: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One scripted answer: a status, or a richer reply. */
export type Reply =
  | number
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  | "drop"; // destroy the socket without an answer (a network error for the sender)

export interface Receiver {
  host: string;
  port: number;
  /** `http://host:port` — the form approved as a binding and listed in the dev allowlist. */
  origin: string;
  requests: Received[];
  /** Requests to one path (query ignored). */
  at(path: string): Received[];
  /** Answers the next requests to `path` with `replies` in order, then `fallback` (default 200). */
  script(path: string, replies: Reply[], fallback?: Reply): void;
  /** Resolves once `count` requests reached `path`; rejects after `timeoutMs`. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  host = "127.0.0.1",
  port = 0,
  options: { onRequest?: (r: Received) => void } = {},
): Promise<Receiver> {
  const requests: Received[] = [];
  const scripts = new Map<string, { queue: Reply[]; fallback: Reply }>();
  const waiters = new Set<() => void>();
  const sockets = new Set<net.Socket>();

  const answer = (res: ServerResponse, reply: Reply) => {
    if (reply === "drop") {
      res.socket?.destroy();
      return;
    }
    const r = typeof reply === "number" ? { status: reply } : reply;
    const send = () => {
      res.writeHead(r.status, { "content-type": "text/plain", ...(r.headers ?? {}) });
      res.end(r.body ?? "");
    };
    if (r.delayMs) setTimeout(send, r.delayMs);
    else send();
  };

  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "";
      const path = url.split("?")[0] ?? url;
      const received = {
        at: Date.now(),
        method: req.method ?? "",
        url,
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(received);
      options.onRequest?.(received);
      const script = scripts.get(path);
      const reply = script ? (script.queue.shift() ?? script.fallback) : 200;
      answer(res, reply);
      for (const wake of [...waiters]) wake();
    });
  });
  server.on("connection", (s: net.Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => ok());
  });
  const addr = server.address() as net.AddressInfo;
  const at = (path: string) => requests.filter((r) => r.path === path);

  return {
    host,
    port: addr.port,
    origin: `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`,
    requests,
    at,
    script(path, replies, fallback = 200) {
      scripts.set(path, { queue: [...replies], fallback });
    },
    waitFor(path, count, timeoutMs = 15_000) {
      return new Promise((ok, fail) => {
        const check = () => {
          const got = at(path);
          if (got.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            ok(got);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          fail(new Error(`expected ${count} request(s) to ${path} within ${timeoutMs} ms, got ${at(path).length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

export interface TcpTrap {
  host: string;
  port: number;
  /** TCP connections accepted, whatever came over them. */
  connections: number;
  close(): Promise<void>;
}

/** A listener that accepts and immediately closes connections, counting them. */
export async function startTcpTrap(host: string, port = 0): Promise<TcpTrap> {
  const state = { connections: 0 };
  const server = net.createServer((socket) => {
    state.connections++;
    socket.destroy();
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => ok());
  });
  const addr = server.address() as net.AddressInfo;
  return {
    host,
    port: addr.port,
    get connections() {
      return state.connections;
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
