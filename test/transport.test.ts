/**
 * §8 "plaintext MUST NOT be offered", against the real web process without dev
 * mode: HTTPS from TLS_CERT_FILE/TLS_KEY_FILE with a self-signed certificate made here (and a
 * SIGHUP reload to a new one), the trusted-proxy mode that refuses any X-Forwarded-Proto but
 * `https` with a §8.5 envelope, and a refusal to start with neither.
 */
// covers: server/transport.ts, server/web.ts
import http from "node:http";
import https from "node:https";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusalOf, startHub, type HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { validateOfficial } from "./support/spec";
import { httpsRequest, makeSelfSigned, presentedFingerprint, type SelfSigned } from "./support/tls";
import { waitFor } from "./support/wait";

const A = "deploybot/dev-team";
/** No server from the fixture: each test starts its own, in the mode it checks. */
const fx = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  server: "none",
});
const acme = fx.account("acme");
let dir: string;
const running: HubProcess[] = [];
/** No dev mode, and no public URL: the Hub must derive what it can itself. */
const PRODUCTION = { MA2H_DEV_MODE: undefined, MA2H_PUBLIC_URL: undefined };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ma2h-tls-"));
});

afterAll(async () => {
  await Promise.all(running.map((h) => h.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(env: Record<string, string | undefined>): Promise<HubProcess> {
  const hub = await startHub({ databaseUrl: fx.databaseUrl, env: { ...PRODUCTION, ...env }, waitReady: false });
  running.push(hub);
  return hub;
}

async function until<T>(
  what: string,
  hub: HubProcess,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  // A probe that throws is "not up yet" (waitFor retries it); an exited process ends the wait at once.
  const got = await waitFor(
    async () => {
      if (hub.child.exitCode !== null) return { exited: true as const };
      const value = await probe();
      return value === undefined ? undefined : { value };
    },
    { timeout: timeoutMs, every: 200, what },
  ).catch((err: Error) => {
    throw new Error(`${err.message}:\n${hub.output()}`);
  });
  if ("exited" in got) throw new Error(`${what}: process exited early:\n${hub.output()}`);
  return got.value;
}

/** A plaintext request; resolves with the status, or with the error when the connection fails. */
function plainRequest(port: number, path: string, headers: Record<string, string> = {}, body?: unknown) {
  return new Promise<{ status?: number; body?: any; contentType?: string; error?: string }>((ok) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: payload ? "POST" : "GET",
        agent: false,
        timeout: 10_000,
        headers: {
          ...headers,
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          ok({ status: res.statusCode, body: parsed, contentType: String(res.headers["content-type"] ?? "") });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (err) => ok({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end(payload);
  });
}

describe("TLS mode: TLS_CERT_FILE + TLS_KEY_FILE, no dev mode", () => {
  let hub: HubProcess;
  let first: SelfSigned;
  let base: string;

  beforeAll(async () => {
    first = makeSelfSigned(dir, "first", "ma2h-first");
    hub = await start({ TLS_CERT_FILE: first.certFile, TLS_KEY_FILE: first.keyFile });
    base = `https://127.0.0.1:${hub.port}`;
    await until("https discovery", hub, async () =>
      (await httpsRequest(`${base}/.well-known/ma2h`, first.cert)).status === 200 ? true : undefined,
    );
  });

  it("serves discovery and a submit over HTTPS to a client trusting the self-signed certificate", async () => {
    const cap = await httpsRequest(`${base}/.well-known/ma2h`, first.cert);
    expect(cap.status).toBe(200);
    expect(validateOfficial("capability.schema.json", cap.body)).toEqual([]);
    expect(hub.output()).toContain('"mode":"tls"');
    expect(hub.output()).not.toContain("DEV MODE");

    const submit = await httpsRequest(`${base}/v1/messages`, first.cert, {
      method: "POST",
      token: acme.keys[A],
      body: envelope("ask", A),
    });
    expect(submit.status, JSON.stringify(submit.body)).toBe(202);
    expect(validateOfficial("submit-ack.schema.json", submit.body)).toEqual([]);
    // With no MA2H_PUBLIC_URL the links the Hub hands out are https, like the only way in.
    expect(submit.body.poll_url).toBe(`${base}/v1/messages/${submit.body.id}`);
    const pulled = await httpsRequest(submit.body.poll_url as string, first.cert, { token: acme.keys[A] });
    expect([pulled.status, pulled.body.status]).toEqual([200, "open"]);
  });

  it("refuses a client that does not trust the certificate (it is really TLS, really checked)", async () => {
    const other = makeSelfSigned(dir, "stranger", "stranger");
    await expect(httpsRequest(`${base}/.well-known/ma2h`, other.cert)).rejects.toThrow();
  });

  it("offers no plaintext on the same port", async () => {
    const res = await plainRequest(hub.port, "/.well-known/ma2h");
    // The TLS server never speaks HTTP: the connection fails, or at most a bare 400 comes back.
    expect(res.status === undefined || res.status === 400, JSON.stringify(res)).toBe(true);
    expect(res.status).not.toBe(200);
    expect(JSON.stringify(res.body ?? "")).not.toContain("ma2h_version");
  });

  it("serves peers other than 127.0.0.1 (the loopback-only rule is dev mode's)", async () => {
    const res = await new Promise<number>((ok, fail) => {
      const req = https.request(
        `${base}/.well-known/ma2h`,
        { ca: first.cert, agent: false, localAddress: "127.0.0.2" },
        (r) => {
          r.resume();
          ok(r.statusCode ?? 0);
        },
      );
      req.on("error", fail);
      req.end();
    });
    expect(res).toBe(200);
  });

  it("SIGHUP reloads the certificate files: new connections see the new certificate", async () => {
    expect(await presentedFingerprint(hub.port, [first.cert])).toBe(first.fingerprint);
    const second = makeSelfSigned(dir, "second", "ma2h-second");
    expect(second.fingerprint).not.toBe(first.fingerprint);
    // Renewal in place: the same paths get the new certificate and key.
    writeFileSync(first.certFile, second.cert);
    writeFileSync(first.keyFile, readFileSync(second.keyFile));
    // Before the signal the server keeps the certificate it loaded.
    expect(await presentedFingerprint(hub.port, [first.cert])).toBe(first.fingerprint);
    process.kill(hub.child.pid as number, "SIGHUP");
    const seen = await until(
      "reloaded certificate",
      hub,
      async () => {
        const fp = await presentedFingerprint(hub.port, [second.cert]);
        return fp === second.fingerprint ? fp : undefined;
      },
      15_000,
    );
    expect(seen).toBe(second.fingerprint);
    expect(hub.output()).toContain("TLS certificate reloaded");
    // Still serving, with the new certificate, and still alive after the signal.
    const cap = await httpsRequest(`${base}/.well-known/ma2h`, second.cert);
    expect(cap.status).toBe(200);
    expect(hub.child.exitCode).toBeNull();
  });

  it("a SIGHUP with a broken key file keeps the previous certificate and keeps serving", async () => {
    const current = await presentedFingerprint(hub.port, [readFileSync(first.certFile)]);
    writeFileSync(first.keyFile, "not a key\n");
    process.kill(hub.child.pid as number, "SIGHUP");
    await until(
      "reload failure logged",
      hub,
      async () => (hub.output().includes("TLS certificate reload failed") ? true : undefined),
      15_000,
    );
    const certNow = readFileSync(first.certFile);
    expect(await presentedFingerprint(hub.port, [certNow])).toBe(current);
    expect((await httpsRequest(`${base}/healthz`, certNow)).status).toBe(200);
  });
});

describe("proxy mode: MA2H_TRUST_PROXY=1, no dev mode", () => {
  let hub: HubProcess;

  beforeAll(async () => {
    hub = await start({ MA2H_TRUST_PROXY: "1", MA2H_PUBLIC_URL: "https://hub.example.test" });
    await until("proxied discovery", hub, async () =>
      (await plainRequest(hub.port, "/.well-known/ma2h", { "x-forwarded-proto": "https" })).status === 200
        ? true
        : undefined,
    );
  });

  it("accepts requests the proxy marks X-Forwarded-Proto: https (discovery and a submit)", async () => {
    const cap = await plainRequest(hub.port, "/.well-known/ma2h", { "x-forwarded-proto": "https" });
    expect(cap.status).toBe(200);
    expect(hub.output()).toContain('"mode":"proxy"');
    const submit = await plainRequest(
      hub.port,
      "/v1/messages",
      { "x-forwarded-proto": "https", authorization: `Bearer ${acme.keys[A]}` },
      envelope("ask", A),
    );
    expect(submit.status, JSON.stringify(submit.body)).toBe(202);
    expect(submit.body.poll_url).toBe(`https://hub.example.test/v1/messages/${submit.body.id}`);
  });

  for (const [label, headers] of [
    ["X-Forwarded-Proto: http", { "x-forwarded-proto": "http" }],
    ["no X-Forwarded-Proto", {}],
    ["X-Forwarded-Proto: ws", { "x-forwarded-proto": "ws" }],
  ] as const) {
    it(`refuses ${label} with 403 and the §8.5 envelope, before any route runs`, async () => {
      for (const path of ["/.well-known/ma2h", "/v1/messages", "/healthz"]) {
        const res = await plainRequest(
          hub.port,
          path,
          { ...headers, authorization: `Bearer ${acme.keys[A]}` },
          path === "/v1/messages" ? envelope("ask", A) : undefined,
        );
        expect(res.status).toBe(403);
        expect(res.contentType).toMatch(/^application\/json/);
        expect(Object.keys(res.body)).toEqual(["error"]);
        expect(res.body.error.code).toBe("not_authorized");
        expect(typeof res.body.error.message).toBe("string");
        expect(res.body.error.message).toMatch(/https/i);
      }
    });
  }

  it("a refused submit creates nothing", async () => {
    const { db } = await import("../lib/db");
    const before = await db().message.count();
    const res = await plainRequest(
      hub.port,
      "/v1/messages",
      { "x-forwarded-proto": "http", authorization: `Bearer ${acme.keys[A]}` },
      envelope("notify", A),
    );
    expect(res.status).toBe(403);
    expect(await db().message.count()).toBe(before);
  });
});

describe("refusing to start without TLS, a trusted proxy or dev mode", () => {
  async function refusal(env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
    const hub = await start({ ...env, MA2H_PUBLIC_URL: undefined });
    return refusalOf(hub);
  }

  it("the web exits non-zero naming the three options", async () => {
    const { code, output } = await refusal({});
    expect(code).not.toBe(0);
    for (const option of ["TLS_CERT_FILE", "TLS_KEY_FILE", "MA2H_TRUST_PROXY=1", "MA2H_DEV_MODE=1"])
      expect(output).toContain(option);
    expect(output).not.toContain("web listening");
  });

  it("the hub supervisor refuses the same way, before migrating or spawning anything", async () => {
    const hub = await startHub({ databaseUrl: fx.databaseUrl, mode: "hub", env: { ...PRODUCTION }, waitReady: false });
    running.push(hub);
    const code = await hub.exited;
    expect(code).not.toBe(0);
    expect(hub.output()).toContain("MA2H_TRUST_PROXY=1");
    expect(hub.output()).not.toContain("web listening");
  });

  it("TLS_CERT_FILE without TLS_KEY_FILE (or the reverse) refuses", async () => {
    const cert = makeSelfSigned(dir, "half");
    for (const env of [{ TLS_CERT_FILE: cert.certFile }, { TLS_KEY_FILE: cert.keyFile }]) {
      const { code, output } = await refusal(env);
      expect(code).not.toBe(0);
      expect(output).toContain("set both TLS_CERT_FILE and TLS_KEY_FILE");
      expect(output).not.toContain("web listening");
    }
  });

  it("an unreadable certificate file refuses rather than falling back to plaintext", async () => {
    const { code, output } = await refusal({
      TLS_CERT_FILE: join(dir, "missing.crt"),
      TLS_KEY_FILE: join(dir, "missing.key"),
    });
    expect(code).not.toBe(0);
    expect(output).not.toContain("web listening");
  });
});
