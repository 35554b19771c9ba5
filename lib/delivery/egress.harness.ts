/**
 * Test-only support for egress tests: loopback listeners that count every TCP connection, a
 * connect tripwire that records (and for non-loopback targets blocks, before any packet) every
 * socket the process opens, a scripted resolver, and a throwaway CA made with openssl.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vi } from "vitest";
import type { Lookup } from "./egress";

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  servername?: string;
}

export interface Listener {
  host: string;
  port: number;
  /** TCP connections accepted, whatever came over them. */
  connections: number;
  requests: Seen[];
  /** Resolves when the most recent accepted socket has closed. */
  lastSocketClosed(): Promise<void>;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const ok200: Handler = (_req, res) => res.end("ok");

export async function listen(
  host: string,
  handler: Handler = ok200,
  options: { port?: number; tls?: { key: string; cert: string } } = {},
): Promise<Listener> {
  const sockets = new Set<net.Socket>();
  let lastClosed: Promise<void> = Promise.resolve();
  const state = { connections: 0, requests: [] as Seen[] };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const servername = (req.socket as { servername?: string }).servername;
      state.requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        ...(servername ? { servername } : {}),
      });
      handler(req, res);
    });
  };
  const server = options.tls ? https.createServer(options.tls, onRequest) : http.createServer(onRequest);
  server.on("connection", (socket: net.Socket) => {
    state.connections++;
    sockets.add(socket);
    lastClosed = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("tlsClientError", () => {}); // a refused handshake is an expected outcome here
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    host,
    port,
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    lastSocketClosed: () => lastClosed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface Attempt {
  host: string;
  port: number;
}

const isLoopbackTarget = (host: string) => /^127\.\d+\.\d+\.\d+$/.test(host) || host === "::1";

/**
 * Wrap net.Socket#connect (TLS sockets inherit it): every network connect is recorded; one aimed
 * anywhere but 127/8 or ::1 throws before the socket exists, so tests never send off-host.
 */
export function installTripwire(): { attempts: Attempt[]; restore(): void } {
  const attempts: Attempt[] = [];
  const original = net.Socket.prototype.connect;
  const spy = vi.spyOn(net.Socket.prototype, "connect").mockImplementation(function (
    this: net.Socket,
    ...args: unknown[]
  ) {
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    let target: Attempt | null = null;
    if (first && typeof first === "object" && "port" in first) {
      const o = first as { host?: string; port: number | string };
      target = { host: o.host ?? "localhost", port: Number(o.port) };
    } else if (typeof first === "number") {
      target = { host: typeof args[1] === "string" ? args[1] : "localhost", port: first };
    }
    if (target) {
      attempts.push(target);
      if (!isLoopbackTarget(target.host)) throw new Error(`tripwire: blocked connect to ${target.host}:${target.port}`);
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  });
  return { attempts, restore: () => spy.mockRestore() };
}

/** A scripted resolver: `zone[name]` is the answer (one list, or one list per successive call). */
export function fakeDns(zone: Record<string, string[] | string[][]>): Lookup & { calls: string[] } {
  const calls: string[] = [];
  const perName = new Map<string, number>();
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const entry = zone[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    const n = perName.get(hostname) ?? 0;
    perName.set(hostname, n + 1);
    const answer = Array.isArray(entry[0])
      ? ((entry as string[][])[Math.min(n, entry.length - 1)] ?? [])
      : (entry as string[]);
    return answer.map((address) => ({
      address,
      family: (net.isIP(address.replace(/%.*$/, "")) === 6 ? 6 : 4) as 4 | 6,
    }));
  };
  return Object.assign(lookup, { calls });
}

export interface TestPki {
  ca: string;
  receiver: { key: string; cert: string };
  other: { key: string; cert: string };
}

/** A throwaway CA and two leaf certificates (SAN DNS:receiver.test and DNS:other.test). */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "egress-pki-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  try {
    run(
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "2",
      "-subj",
      "/CN=egress test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign",
    );
    const leaf = (name: string) => {
      writeFileSync(
        join(dir, `${name}.ext`),
        `subjectAltName=DNS:${name}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
      );
      run("req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
      run(
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        `${name}.crt`,
        "-extfile",
        `${name}.ext`,
      );
      return {
        key: readFileSync(join(dir, `${name}.key`), "utf8"),
        cert: readFileSync(join(dir, `${name}.crt`), "utf8"),
      };
    };
    return {
      receiver: leaf("receiver.test"),
      other: leaf("other.test"),
      ca: readFileSync(join(dir, "ca.crt"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
