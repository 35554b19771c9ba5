/**
 * Egress behaviour against real loopback listeners (allowlisted as in dev mode): statuses reported
 * as they are, redirects never followed, time and size bounds, proxy variables ignored, and
 * TLS verified against the URL hostname while connecting to the pinned IP (§9.4).
 */
// covers: lib/delivery/egress.ts, lib/delivery/egress-send.ts, lib/delivery/egress-result.ts
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postBytes, postJson, type PostJsonOptions } from "./egress";
import { fakeDns, installTripwire, listen, makeTestPki, type Listener, type TestPki } from "./egress.harness";

const BODY = JSON.stringify({ resolution_id: "res_1", response: { value: "ship" } });

let target: Listener; // redirect destination: must never be contacted
let app: Listener;
let tripwire: ReturnType<typeof installTripwire>;
const stalled = new Set<ServerResponse>();

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? "/";
  const status = /^\/status\/(\d{3})$/.exec(path);
  if (status) return void res.writeHead(Number(status[1])).end("answer");
  if (path === "/redirect")
    return void res.writeHead(302, { Location: `http://127.0.0.1:${target.port}/stolen` }).end();
  if (path === "/slow") return void stalled.add(res); // never answers
  if (path === "/trickle") {
    res.writeHead(200, { "Content-Type": "text/plain" });
    const t = setInterval(() => res.write("."), 50);
    res.on("close", () => clearInterval(t));
    return;
  }
  if (path === "/endless") {
    res.writeHead(200);
    const chunk = Buffer.alloc(16 * 1024, 120);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once("drain", pump);
    };
    pump();
    return;
  }
  if (path === "/declared-huge")
    return void res.writeHead(200, { "Content-Length": String(10 * 1024 * 1024) }).write("x");
  if (path === "/just-under") return void res.end(Buffer.alloc(1000, 97));
  res.writeHead(404).end();
}

const appUrl = (path: string) => `http://127.0.0.1:${app.port}${path}`;
const allowApp = (): PostJsonOptions => ({ headers: {}, allowLoopback: new Set([`http://127.0.0.1:${app.port}`]) });

beforeAll(async () => {
  target = await listen("127.0.0.1");
  app = await listen("127.0.0.1", route);
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  await Promise.all([target.close(), app.close()]);
});
beforeEach(() => {
  tripwire = installTripwire();
});
afterEach(() => tripwire.restore());

describe("HTTP answers are reported, never followed", () => {
  it.each([200, 204, 400, 404, 500, 503])("status %i is returned as-is", async (code) => {
    const result = await postJson(appUrl(`/status/${code}`), BODY, allowApp());
    expect(result).toMatchObject({ ok: true, status: code });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("a 302 is returned as 302 and the redirect target receives nothing", async () => {
    expect(await postJson(appUrl("/redirect"), BODY, allowApp())).toMatchObject({ ok: true, status: 302 });
    expect(target.connections).toBe(0);
    expect(tripwire.attempts).toEqual([{ host: "127.0.0.1", port: app.port }]);
  });

  it("sends the JSON with its own framing headers, the caller's credentials, and nothing a caller can override", async () => {
    const headers = {
      Authorization: "Bearer t0k",
      "MA2H-Signature": "t=1,jti=a,v1=b",
      Host: "evil.test",
      "content-type": "text/plain",
      "User-Agent": "curl",
    };
    await postJson(appUrl("/status/200?q=1#frag"), BODY, { ...allowApp(), headers });
    const seen = app.requests.at(-1)!;
    expect(seen).toMatchObject({ method: "POST", url: "/status/200?q=1", body: BODY });
    expect(seen.headers).toMatchObject({
      host: `127.0.0.1:${app.port}`,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(BODY)),
      "user-agent": "MA2H-Hub",
      authorization: "Bearer t0k",
      "ma2h-signature": "t=1,jti=a,v1=b",
    });
  });
});

describe("a binary body (Web Push)", () => {
  it("postBytes sends the bytes under the caller's media type, framed and guarded like postJson", async () => {
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, 0x00]);
    const result = await postBytes(appUrl("/status/201"), bytes, "application/octet-stream", {
      ...allowApp(),
      headers: { "Content-Encoding": "aes128gcm", TTL: "60", "Content-Type": "text/plain" },
    });
    expect(result).toMatchObject({ ok: true, status: 201 });
    const seen = app.requests.at(-1)!;
    expect(seen.headers).toMatchObject({
      "content-type": "application/octet-stream",
      "content-length": "6",
      "content-encoding": "aes128gcm",
      ttl: "60",
      "user-agent": "MA2H-Hub",
    });
    expect(seen.body).toBe(bytes.toString());
    // Not allowlisted: loopback is refused before any connection, as for JSON.
    expect(await postBytes(appUrl("/status/201"), bytes, "application/octet-stream", { headers: {} })).toMatchObject({
      ok: false,
      errorClass: "refused_address",
    });
  });
});

describe("bounds", () => {
  it("a server that never answers → timeout within the bound", async () => {
    const result = await postJson(appUrl("/slow"), BODY, { ...allowApp(), timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, errorClass: "timeout" });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(1500);
  });

  it("the bound covers the whole response, not just the first byte", async () => {
    const result = await postJson(appUrl("/trickle"), BODY, { ...allowApp(), timeoutMs: 400 });
    expect(result).toMatchObject({ ok: false, errorClass: "timeout" });
    expect(result.latencyMs).toBeLessThan(1500);
  });

  it("the bound covers a resolver that never answers", async () => {
    const hang = Object.assign(() => new Promise<never>(() => {}), {});
    const result = await postJson("http://hang.test/", BODY, { headers: {}, lookup: hang, timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, errorClass: "timeout" });
    expect(result.latencyMs).toBeLessThan(1500);
  });

  it("an endless response → response_too_large, and the socket is closed", async () => {
    const result = await postJson(appUrl("/endless"), BODY, { ...allowApp(), timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: false, errorClass: "response_too_large" });
    await expect(
      Promise.race([
        app.lastSocketClosed().then(() => "closed"),
        new Promise((r) => setTimeout(() => r("open"), 2000)),
      ]),
    ).resolves.toBe("closed");
  });

  it("a declared Content-Length over the cap is refused without reading it", async () => {
    expect(await postJson(appUrl("/declared-huge"), BODY, { ...allowApp(), timeoutMs: 5000 })).toMatchObject({
      errorClass: "response_too_large",
    });
  });

  it("maxResponseBytes is configurable", async () => {
    expect(await postJson(appUrl("/just-under"), BODY, { ...allowApp(), maxResponseBytes: 1000 })).toMatchObject({
      ok: true,
      status: 200,
    });
    expect(await postJson(appUrl("/just-under"), BODY, { ...allowApp(), maxResponseBytes: 999 })).toMatchObject({
      errorClass: "response_too_large",
    });
  });

  it("nothing listening → connect_error", async () => {
    const gone = await listen("127.0.0.1");
    await gone.close();
    const result = await postJson(`http://127.0.0.1:${gone.port}/`, BODY, {
      headers: {},
      allowLoopback: new Set([`http://127.0.0.1:${gone.port}`]),
    });
    expect(result).toMatchObject({ ok: false, errorClass: "connect_error" });
  });
});

describe("proxy variables are ignored", () => {
  const NAMES = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NODE_USE_ENV_PROXY",
  ];
  const saved: Record<string, string | undefined> = {};
  let proxy: Listener;
  beforeAll(async () => {
    proxy = await listen("127.0.0.1");
    for (const n of NAMES) {
      saved[n] = process.env[n];
      process.env[n] = n === "NODE_USE_ENV_PROXY" ? "1" : `http://127.0.0.1:${proxy.port}`;
    }
    delete process.env.NO_PROXY;
  });
  afterAll(async () => {
    for (const n of NAMES) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
    await proxy.close();
  });

  it("the post goes straight to the receiver; the proxy listener receives nothing", async () => {
    const before = app.requests.length;
    expect(await postJson(appUrl("/status/200"), BODY, allowApp())).toMatchObject({ ok: true, status: 200 });
    expect(app.requests.length).toBe(before + 1);
    expect(proxy.connections).toBe(0);
  });

  it("a refused URL is not handed to the proxy either", async () => {
    expect(await postJson("http://169.254.169.254/", BODY, { headers: {} })).toMatchObject({
      errorClass: "refused_address",
    });
    expect(proxy.connections).toBe(0);
    expect(tripwire.attempts).toEqual([]);
  });
});

describe("TLS: connect to the pinned IP, verify the certificate against the URL hostname", () => {
  let pki: TestPki;
  let good: Listener; // certificate for receiver.test
  let wrong: Listener; // certificate for other.test
  const dns = () => fakeDns({ "receiver.test": ["127.0.0.1"] });
  const tlsOptions = (port: number, extra: Partial<PostJsonOptions> = {}): PostJsonOptions => ({
    headers: {},
    lookup: dns(),
    allowLoopback: new Set([`https://receiver.test:${port}`, `https://127.0.0.1:${port}`]),
    ...extra,
  });

  beforeAll(async () => {
    pki = makeTestPki();
    good = await listen("127.0.0.1", undefined, { tls: pki.receiver });
    wrong = await listen("127.0.0.1", undefined, { tls: pki.other });
  });
  afterAll(async () => {
    await Promise.all([good.close(), wrong.close()]);
  });

  it("with the test CA, https://receiver.test succeeds; SNI and Host carry the hostname", async () => {
    const result = await postJson(
      `https://receiver.test:${good.port}/hook`,
      BODY,
      tlsOptions(good.port, { ca: pki.ca }),
    );
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(good.requests.at(-1)).toMatchObject({ servername: "receiver.test", body: BODY });
    expect(good.requests.at(-1)!.headers.host).toBe(`receiver.test:${good.port}`);
    expect(tripwire.attempts).toEqual([{ host: "127.0.0.1", port: good.port }]);
  });

  it("a certificate for another name → tls_error, and no request is sent", async () => {
    const result = await postJson(
      `https://receiver.test:${wrong.port}/hook`,
      BODY,
      tlsOptions(wrong.port, { ca: pki.ca }),
    );
    expect(result).toMatchObject({ ok: false, errorClass: "tls_error" });
    expect(result.ok === false && result.detail).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/);
    expect(wrong.requests).toEqual([]);
  });

  it("the certificate is checked against the URL host, not the socket address: https://127.0.0.1 → tls_error", async () => {
    expect(
      await postJson(`https://127.0.0.1:${good.port}/`, BODY, tlsOptions(good.port, { ca: pki.ca })),
    ).toMatchObject({ errorClass: "tls_error" });
  });

  it("without the CA the chain is untrusted → tls_error, even with NODE_TLS_REJECT_UNAUTHORIZED=0", async () => {
    const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    try {
      expect(await postJson(`https://receiver.test:${good.port}/`, BODY, tlsOptions(good.port))).toMatchObject({
        errorClass: "tls_error",
      });
    } finally {
      if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved;
    }
  });

  it("a plaintext server behind an https URL → tls_error", async () => {
    const options = { headers: {}, allowLoopback: new Set([`https://127.0.0.1:${app.port}`]), ca: pki.ca };
    expect(await postJson(`https://127.0.0.1:${app.port}/status/200`, BODY, options)).toMatchObject({
      errorClass: "tls_error",
    });
  });
});
