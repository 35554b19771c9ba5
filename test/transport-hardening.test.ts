/**
 * Transport hardening against the real web process: production (TLS or trusted-proxy mode) refuses a
 * leftover dev setting at start (§9.4: a relaxation fails closed); X-Forwarded-* is believed only
 * from a peer in MA2H_TRUSTED_PROXIES; over HTTPS only the `__Secure-` session cookie is read; a
 * malformed cookie is no session (401 / the sign-in redirect, never a 500); HSTS in production only;
 * a Content-Security-Policy with a per-request script nonce and frame-ancestors 'none' on every
 * HTML page (docs/security.md "Production cannot fall into dev mode", "Forwarded headers",
 * "Cookies and page headers").
 */
// covers: server/transport.ts, server/forwarded.ts, server/page-headers.ts, lib/principals/web-sessions.ts, lib/env.ts
import http from "node:http";
import https from "node:https";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { createWebSession } from "../lib/principals/web-sessions";
import { refusalOf, startHub, type HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { makeSelfSigned } from "./support/tls";
import { waitFor } from "./support/wait";

const A = "deploybot/dev-team";
const fx = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  server: "none",
});
let dir: string;
const running: HubProcess[] = [];
const PRESENCE = `/v1/agents/${encodeURIComponent(A)}/presence?account=acme`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ma2h-hardening-"));
});

afterAll(async () => {
  await Promise.all(running.map((h) => h.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(env: Record<string, string | undefined>, mode: "web" | "worker" = "web"): Promise<HubProcess> {
  const hub = await startHub({ databaseUrl: fx.databaseUrl, mode, env, waitReady: false });
  running.push(hub);
  return hub;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json?: any;
}

/**
 * A GET from the loopback address `from` (127.0.0.1 or ::1), headers as given: plaintext, or HTTPS
 * trusting only `ca` when given.
 */
function request(port: number, path: string, headers: Record<string, string> = {}, from = "127.0.0.1", ca?: Buffer) {
  return new Promise<Answer>((ok, fail) => {
    const options = { host: from, port, path, method: "GET", agent: false, timeout: 20_000, headers };
    const onResponse = (res: http.IncomingMessage) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        ok({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    };
    const req = ca ? https.request({ ...options, ca }, onResponse) : http.request(options, onResponse);
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", fail);
    req.end();
  });
}

async function until(hub: HubProcess, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  // A probe that throws is "not up yet" (waitFor retries it); an exited process ends the wait at once.
  const exited = await waitFor(async () => (hub.child.exitCode !== null ? "exited" : (await probe()) && "up"), {
    timeout: timeoutMs,
    every: 200,
    what: "the probe to hold",
  }).catch((err: Error) => {
    throw new Error(`${err.message}:\n${hub.output()}`);
  });
  if (exited === "exited") throw new Error(`process exited early:\n${hub.output()}`);
}

async function refusal(env: Record<string, string | undefined>, mode: "web" | "worker" = "web") {
  const hub = await start(env, mode);
  return refusalOf(hub);
}

async function sessionToken(): Promise<string> {
  const user = await db().user.findUniqueOrThrow({ where: { email: "alice@acme.test" } });
  const token = `session-alice-${Date.now()}-${Math.random()}`;
  await createWebSession(user.id, token, new Date(Date.now() + 3600_000));
  return token;
}

function requestLines(hub: HubProcess): Array<Record<string, unknown>> {
  return hub
    .output()
    .split("\n")
    .filter((l) => l.includes('"msg":"request"'))
    .map((l) => JSON.parse(l));
}

describe("production refuses dev settings at start (§9.4)", () => {
  it("TLS mode + MA2H_DEV_MODE: the web exits non-zero, naming the setting and why", async () => {
    const cert = makeSelfSigned(dir, "dev-tls");
    const { code, output } = await refusal({
      TLS_CERT_FILE: cert.certFile,
      TLS_KEY_FILE: cert.keyFile,
      MA2H_DEV_MODE: "1",
    });
    expect(code).not.toBe(0);
    expect(output).toContain("Refusing to start: MA2H_DEV_MODE is set in TLS mode (TLS_CERT_FILE/TLS_KEY_FILE)");
    expect(output).toContain("§9.4");
    expect(output).not.toContain("web listening");
  });

  it("trusted-proxy mode + MA2H_DEV_CALLBACK_ALLOWLIST: refused too, by the worker as well", async () => {
    const env = {
      MA2H_DEV_MODE: undefined,
      MA2H_TRUST_PROXY: "1",
      MA2H_DEV_CALLBACK_ALLOWLIST: "http://127.0.0.1:9",
    };
    const web = await refusal(env);
    expect(web.code).not.toBe(0);
    expect(web.output).toContain(
      "Refusing to start: MA2H_DEV_CALLBACK_ALLOWLIST is set in trusted-proxy mode (MA2H_TRUST_PROXY)",
    );
    const worker = await refusal(env, "worker");
    expect(worker.code).not.toBe(0);
    expect(worker.output).toContain("MA2H_DEV_CALLBACK_ALLOWLIST is set in trusted-proxy mode");
  });

  it("a malformed MA2H_TRUSTED_PROXIES is refused at start", async () => {
    const { code, output } = await refusal({
      MA2H_DEV_MODE: undefined,
      MA2H_TRUST_PROXY: "1",
      MA2H_TRUSTED_PROXIES: "127.0.0.1/32, 10.0.0.0/33",
    });
    expect(code).not.toBe(0);
    expect(output).toContain('MA2H_TRUSTED_PROXIES: "10.0.0.0/33" is not a CIDR range');
  });
});

describe("retention settings that contradict each other are refused at start", () => {
  it("message retention shorter than inbound retention: the web and the worker exit, naming both", async () => {
    const env = { MA2H_RETENTION_DAYS: "7", MA2H_INBOUND_RETENTION_DAYS: "30" };
    const said = "Refusing to start: MA2H_RETENTION_DAYS (7) is shorter than MA2H_INBOUND_RETENTION_DAYS (30)";
    const [web, worker] = await Promise.all([refusal(env), refusal(env, "worker")]);
    expect(web.code).not.toBe(0);
    expect(web.output).toContain(said);
    expect(web.output).not.toContain("web listening");
    expect(worker.code).not.toBe(0);
    expect(worker.output).toContain(said);
  });
});

describe("trusted-proxy mode: only 127.0.0.1 is the proxy; ::1 is a client", () => {
  let hub: HubProcess;
  let token: string;
  const viaProxy = { "x-forwarded-proto": "https" };

  beforeAll(async () => {
    token = await sessionToken();
    hub = await start({
      MA2H_DEV_MODE: undefined,
      MA2H_TRUST_PROXY: "1",
      MA2H_TRUSTED_PROXIES: "127.0.0.1/32",
      MA2H_PUBLIC_URL: "https://hub.example.test",
      HOST: "::", // dual stack: the same server reached from 127.0.0.1 (trusted) and ::1 (not)
    });
    await until(hub, async () => (await request(hub.port, "/.well-known/ma2h", viaProxy)).status === 200);
  });

  it("honours X-Forwarded-Proto/For from the trusted peer, and sends HSTS", async () => {
    const res = await request(hub.port, "/v1/no-such", { ...viaProxy, "x-forwarded-for": "203.0.113.7, 127.0.0.1" });
    expect(res.status).toBe(404);
    expect(res.headers["strict-transport-security"]).toBe("max-age=63072000");
    // The client is the nearest hop outside the trusted ranges.
    await until(hub, async () => requestLines(hub).some((l) => l.path === "/v1/no-such"));
    expect(requestLines(hub).find((l) => l.path === "/v1/no-such")?.client_ip).toBe("203.0.113.7");
  });

  it("ignores a forged X-Forwarded-Proto/For from any other peer: plaintext refused, the peer logged", async () => {
    const forged = await request(
      hub.port,
      "/.well-known/ma2h",
      { ...viaProxy, "x-forwarded-for": "198.51.100.9", "x-forwarded-host": "evil.example" },
      "::1",
    );
    expect(forged.status).toBe(403);
    expect(forged.json?.error?.code).toBe("not_authorized");
    expect(forged.json?.error?.message).toContain("HTTPS only");
    const before = requestLines(hub).length;
    // Through the proxy the same request is served; a forged chain from ::1 never reaches a log line.
    expect((await request(hub.port, "/.well-known/ma2h", viaProxy)).status).toBe(200);
    expect(hub.output()).not.toContain("198.51.100.9");
    expect(requestLines(hub).length).toBeGreaterThanOrEqual(before);
  });

  it("reads only the __Secure- session cookie; a plain-named one is no session", async () => {
    const secure = await request(hub.port, PRESENCE, {
      ...viaProxy,
      cookie: `__Secure-next-auth.session-token=${token}`,
    });
    expect(secure.status, secure.text).toBe(200);
    const plain = await request(hub.port, PRESENCE, { ...viaProxy, cookie: `next-auth.session-token=${token}` });
    expect(plain.status).toBe(401);
    expect(plain.json?.error?.code).toBe("unauthenticated");
    const page = await request(hub.port, "/inbox", { ...viaProxy, cookie: `next-auth.session-token=${token}` });
    expect(page.status).toBe(307);
    expect(page.headers.location).toContain("/signin");
  });

  it("a malformed __Secure- cookie is no session, never a 500", async () => {
    for (const value of ["%zz", "%E0%A4%A", "eyJhbGciOiJub25lIn0.garbage."]) {
      const cookie = `__Secure-next-auth.session-token=${value}`;
      const api = await request(hub.port, PRESENCE, { ...viaProxy, cookie });
      expect([value, api.status]).toEqual([value, 401]);
      const page = await request(hub.port, "/inbox", { ...viaProxy, cookie });
      expect([value, page.status]).toEqual([value, 307]);
    }
  });
});

describe("TLS mode: HSTS, the page policy and the __Secure- cookie over the Hub's own HTTPS", () => {
  it("serves them", async () => {
    const token = await sessionToken();
    const cert = makeSelfSigned(dir, "tls-mode");
    const hub = await start({ MA2H_DEV_MODE: undefined, TLS_CERT_FILE: cert.certFile, TLS_KEY_FILE: cert.keyFile });
    const get = (path: string, headers: Record<string, string> = {}) =>
      request(hub.port, path, headers, "127.0.0.1", cert.cert);
    await until(hub, async () => (await get("/.well-known/ma2h")).status === 200);
    const signin = await get("/signin");
    expect(signin.headers["strict-transport-security"]).toBe("max-age=63072000");
    expect(signin.headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect((await get(PRESENCE, { cookie: `__Secure-next-auth.session-token=${token}` })).status).toBe(200);
    expect((await get(PRESENCE, { cookie: `next-auth.session-token=${token}` })).status).toBe(401);
    // A forged X-Forwarded-For is no client address here: no proxy is trusted in TLS mode.
    await get("/v1/tls-forged", { "x-forwarded-for": "198.51.100.9" });
    await until(hub, async () => requestLines(hub).some((l) => l.path === "/v1/tls-forged"));
    expect(requestLines(hub).find((l) => l.path === "/v1/tls-forged")?.client_ip).toBe("127.0.0.1");
  });
});

describe("dev mode: cookies, page headers", () => {
  let hub: HubProcess;
  let token: string;

  beforeAll(async () => {
    token = await sessionToken();
    hub = await start({});
    await until(hub, async () => (await request(hub.port, "/.well-known/ma2h")).status === 200);
  });

  it("sends no HSTS, and ignores a forged X-Forwarded-For (no proxy is trusted)", async () => {
    const res = await request(hub.port, "/v1/forged-for", { "x-forwarded-for": "198.51.100.9" });
    expect(res.status).toBe(404);
    expect(res.headers["strict-transport-security"]).toBeUndefined();
    await until(hub, async () => requestLines(hub).some((l) => l.path === "/v1/forged-for"));
    expect(requestLines(hub).find((l) => l.path === "/v1/forged-for")?.client_ip).toBe("127.0.0.1");
  });

  const MALFORMED = [
    "next-auth.session-token=%zz",
    "next-auth.session-token=%E0%A4%A",
    "next-auth.session-token=%",
    "next-auth.session-token=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
    'next-auth.session-token="unterminated',
    `next-auth.session-token=${"A".repeat(3000)}`,
    "next-auth.session-token=%zz; next-auth.csrf-token=%zz; next-auth.callback-url=%E0%A4%A",
    "=%zz; ;;next-auth.session-token",
  ];

  it("a malformed cookie is no session: 401 on /v1, the sign-in redirect on pages, never a 500", async () => {
    for (const cookie of MALFORMED) {
      const api = await request(hub.port, PRESENCE, { cookie });
      expect([cookie, api.status, api.json?.error?.code]).toEqual([cookie, 401, "unauthenticated"]);
      const page = await request(hub.port, "/inbox", { cookie });
      expect([cookie, page.status]).toEqual([cookie, 307]);
      expect(page.headers.location).toContain("/signin");
      for (const path of ["/signin", "/api/auth/session", "/settings/tokens"]) {
        const other = await request(hub.port, path, { cookie });
        expect([cookie, path, other.status < 500]).toEqual([cookie, path, true]);
      }
    }
    // The control: the same routes with the real (plain-named, dev mode) cookie are signed in.
    const signedIn = await request(hub.port, PRESENCE, { cookie: `next-auth.session-token=${token}` });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect((await request(hub.port, "/inbox", { cookie: `next-auth.session-token=${token}` })).status).toBe(200);
  });

  function nonceOf(policy: string): string {
    const script = policy.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
    expect(script).not.toContain("unsafe-inline");
    return /'nonce-([A-Za-z0-9+/=]+)'/.exec(script)?.[1] ?? "";
  }

  it("every HTML page carries the CSP with a fresh nonce on its scripts and frame-ancestors 'none'", async () => {
    const cookie = `next-auth.session-token=${token}`;
    const seen = new Set<string>();
    for (const [path, headers] of [
      ["/signin", {}],
      ["/signin", {}],
      ["/inbox", { cookie }],
      ["/settings/tokens", { cookie }],
      ["/api/auth/signout", { cookie }],
      ["/no-such-page", {}],
    ] as const) {
      const res = await request(hub.port, path, headers);
      expect([path, res.status < 500, String(res.headers["content-type"])]).toEqual([
        path,
        true,
        expect.stringContaining("text/html"),
      ]);
      const policy = String(res.headers["content-security-policy"] ?? "");
      expect(policy, path).toContain("frame-ancestors 'none'");
      const nonce = nonceOf(policy);
      expect(nonce, path).not.toBe("");
      seen.add(nonce);
      // Next's own scripts carry the nonce; no script tag goes without it.
      const scripts = res.text.match(/<script\b[^>]*>/g) ?? [];
      for (const tag of scripts) expect([path, tag]).toEqual([path, expect.stringContaining(`nonce="${nonce}"`)]);
      if (path !== "/api/auth/signout") expect(scripts.length, path).toBeGreaterThan(0);
    }
    expect(seen.size).toBe(6); // per request, never reused
  });

  it("a client-sent policy cannot choose the nonce; JSON carries none; token pages keep their own", async () => {
    const chosen = await request(hub.port, "/signin", {
      "content-security-policy": "script-src 'nonce-AAAAAAAAAAAAAAAAAAAAAA=='",
    });
    expect(chosen.headers["content-security-policy"]).not.toContain("AAAAAAAAAAAAAAAAAAAAAA==");
    expect(chosen.text).not.toContain('nonce="AAAAAAAAAAAAAAAAAAAAAA=="');
    const json = await request(hub.port, "/healthz");
    expect(json.headers["content-security-policy"]).toBeUndefined();
    const tokenPage = await request(hub.port, "/e/not-a-real-token");
    expect(tokenPage.headers["content-security-policy"]).toContain("default-src 'none'");
  });
});
