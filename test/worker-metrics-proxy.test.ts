/**
 * The worker's own `GET /metrics` in trusted-proxy mode (docs/DEPLOYMENT.md "Metrics"): nothing
 * stands in front of it, so it listens on loopback even when `HOST` opens the web to the network,
 * unless MA2H_WORKER_METRICS_HOST names another address; and it answers MA2H_WORKER_METRICS_TOKEN,
 * not the web's token, when that is set. Real worker processes; the machine's non-loopback address
 * is what "the network" reaches.
 */
// covers: workers/main.ts, lib/metrics/endpoint.ts
import http from "node:http";
import { networkInterfaces } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { env, resetEnvCache } from "../lib/env";
import { freePort, type HubProcess, startHub } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { waitFor } from "./support/wait";

const WEB_TOKEN = "web-metrics-token-0123456789abcdef0123456789abcdef";
const WORKER_TOKEN = "worker-metrics-token-0123456789abcdef0123456789ab";

const fx = useHubFixture({ accounts: { acme: { agents: ["bot/acme"] } }, server: "none" });
const running: HubProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
});

/** An IPv4 address of this machine that is not loopback: where another host would connect. */
function outsideAddress(): string {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  throw new Error("this machine has no non-loopback IPv4 address");
}

/** GET /metrics; the status, or the connection error's code. */
function scrape(host: string, port: number, token: string): Promise<number | string> {
  return new Promise((ok) => {
    const req = http.get(
      { host, port, path: "/metrics", agent: false, timeout: 5000, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on("end", () => ok(res.statusCode ?? 0));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (err: NodeJS.ErrnoException) => ok(err.code ?? err.message));
  });
}

async function worker(extra: Record<string, string>): Promise<{ port: number; proc: HubProcess }> {
  const port = await freePort();
  const proc = await startHub({
    databaseUrl: fx.databaseUrl,
    mode: "worker",
    env: {
      MA2H_DEV_MODE: undefined,
      MA2H_TRUST_PROXY: "1",
      MA2H_PUBLIC_URL: "https://hub.example.test",
      HOST: "0.0.0.0", // the web's port open to the proxy's network
      MA2H_METRICS_TOKEN: WEB_TOKEN,
      MA2H_WORKER_METRICS_PORT: String(port),
      ...extra,
    },
  });
  running.push(proc);
  await waitFor(() => proc.output().includes("worker metrics listening") || proc.child.exitCode !== null, {
    timeout: 60_000,
    every: 100,
    what: "the worker's `worker metrics listening` line",
  }).catch(() => undefined);
  if (!proc.output().includes("worker metrics listening")) throw new Error(`worker did not listen:\n${proc.output()}`);
  return { port, proc };
}

describe("trusted-proxy mode", () => {
  it("the worker's /metrics is on loopback only, and answers its own token, not the web's", async () => {
    const { port } = await worker({ MA2H_WORKER_METRICS_TOKEN: WORKER_TOKEN });
    expect(await scrape(outsideAddress(), port, WORKER_TOKEN)).toBe("ECONNREFUSED");
    expect(await scrape("127.0.0.1", port, WORKER_TOKEN)).toBe(200);
    expect(await scrape("127.0.0.1", port, WEB_TOKEN)).toBe(401);
  });

  it("MA2H_WORKER_METRICS_HOST puts it where the operator says; without its own token the web's serves", async () => {
    const outside = outsideAddress();
    const { port } = await worker({ MA2H_WORKER_METRICS_HOST: outside });
    expect(await scrape(outside, port, WEB_TOKEN)).toBe(200);
    expect(await scrape("127.0.0.1", port, WEB_TOKEN)).toBe("ECONNREFUSED");
  });
});

describe("configuration", () => {
  it("a worker port needs one of the two tokens (fail closed); a short worker token refuses the start", () => {
    const saved = { ...process.env };
    try {
      process.env.MA2H_WORKER_METRICS_PORT = "9464";
      delete process.env.MA2H_METRICS_TOKEN;
      delete process.env.MA2H_WORKER_METRICS_TOKEN;
      resetEnvCache();
      expect(() => env()).toThrow(/neither MA2H_WORKER_METRICS_TOKEN nor MA2H_METRICS_TOKEN/);
      process.env.MA2H_WORKER_METRICS_TOKEN = WORKER_TOKEN;
      resetEnvCache();
      expect(env().MA2H_WORKER_METRICS_TOKEN).toBe(WORKER_TOKEN);
      process.env.MA2H_WORKER_METRICS_TOKEN = "short";
      resetEnvCache();
      expect(() => env()).toThrow(/MA2H_WORKER_METRICS_TOKEN: must be at least 32 bytes/);
    } finally {
      process.env = saved;
      resetEnvCache();
    }
  });
});
