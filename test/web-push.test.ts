/**
 * Browser push (docs/notifications.md "Browser push") against a real web + worker pair and a
 * local HTTP server standing in for the push service. Each device is a synthetic subscription: a
 * P-256 key pair and a 16-byte auth secret made here, posted through `POST /api/push/subscriptions`
 * with the person's session like the inbox does. What arrives is decrypted HERE with node:crypto
 * from RFC 8291/8188 (ECDH, HKDF, AES-128-GCM — not with web-push) and its VAPID JWT (RFC 8292)
 * verified against the key `GET /api/push/key` serves. The push service's answers are scripted per
 * device path: 201 accepts, 410 says the subscription is gone, 503 once is retried.
 */
// covers: lib/notifications/web-push/, app/api/push/
import { createECDH, createPublicKey, hkdfSync, createDecipheriv, randomBytes, verify } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { createWebSession } from "../lib/principals/web-sessions";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { waitFor } from "./support/wait";

const A = "bot/acme";
const SUBJECT = "mailto:ops@ma2h.test";

/** The stand-in push service: records raw bodies, answers from a per-path script (default 201). */
interface Arrival {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
const arrivals: Arrival[] = [];
const scripts = new Map<string, number[]>();
let service: http.Server;
let serviceOrigin = "";

async function startService(): Promise<void> {
  service = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      arrivals.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(scripts.get(path)?.shift() ?? 201).end();
    });
  });
  await new Promise<void>((r) => service.listen(0, "127.0.0.1", r));
  serviceOrigin = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
}

const hub = useHubFixture({
  server: "pair",
  accounts: {
    acme: {
      agents: [A],
      humans: [
        { handle: "mia", role: "member" }, // two devices: one accepts, one is gone (410)
        { handle: "gus", role: "member" }, // one device, gone (410)
        { handle: "rae", role: "member" }, // one device: 503 once, then accepted
        { handle: "pat", role: "member" }, // push.askTask off
        { handle: "lou", role: "member" }, // push.minPriority urgent
      ],
    },
  },
  setup: async () => {
    await startService();
    const account = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    const prefs = { pat: { askTask: false }, lou: { minPriority: "urgent" } };
    for (const [handle, push] of Object.entries(prefs))
      await db().notificationPreference.create({
        data: {
          userId: (await userOf(handle)).id,
          accountId: account.id,
          prefs: { channels: { push } },
          updatedAt: new Date(),
        },
      });
  },
  env: () => ({
    MA2H_DEV_CALLBACK_ALLOWLIST: serviceOrigin,
    MA2H_VAPID_SUBJECT: SUBJECT,
    MA2H_NOTIFY_RETRY_BASE_MS: "300",
    MA2H_DELIVERY_SWEEP_MS: "500",
  }),
});

afterAll(() => new Promise<void>((r) => service.close(() => r())));

const userOf = (handle: string) => db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` } });

async function sessionOf(handle: string): Promise<string> {
  const token = `session-${handle}-${Date.now()}-${Math.random()}`;
  await createWebSession((await userOf(handle)).id, token, new Date(Date.now() + 3600_000));
  return `next-auth.session-token=${token}`;
}

/** A synthetic browser subscription: the user agent's key pair and auth secret (RFC 8291 §2). */
function syntheticDevice(path: string) {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    path,
    json: {
      endpoint: `${serviceOrigin}${path}`,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
    },
  };
}
type Device = ReturnType<typeof syntheticDevice>;

async function api(method: string, path: string, cookie: string | null, body?: unknown, origin = hub.url) {
  const headers: Record<string, string> = { origin };
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${hub.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, any> | null };
}

/** RFC 8291 §3.4 + RFC 8188 §2: the aes128gcm body decrypted with the device's private key. */
function decrypt(device: Device, body: Buffer): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  expect(idlen).toBe(65);
  expect(ciphertext.length).toBeLessThanOrEqual(rs);
  const ecdhSecret = device.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), device.ecdh.getPublicKey(), asPublic]);
  const ikm = Buffer.from(hkdfSync("sha256", ecdhSecret, device.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last (only) record ends with the 0x02 delimiter, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  expect(padded[end]).toBe(2);
  return padded.subarray(0, end).toString("utf8");
}

/** RFC 8292: `vapid t=<jwt>, k=<key>`; the JWT's ES256 signature checked with `k`, which must be the served key. */
function verifyVapid(header: string | undefined, servedKey: string) {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
  expect(m, header).not.toBeNull();
  const [, jwt, k] = m as unknown as [string, string, string];
  expect(k).toBe(servedKey);
  const [h, p, s] = jwt.split(".") as [string, string, string];
  expect(JSON.parse(Buffer.from(h, "base64url").toString())).toMatchObject({ typ: "JWT", alg: "ES256" });
  const point = Buffer.from(k, "base64url");
  const key = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    },
    format: "jwk",
  });
  const signed = verify(
    "sha256",
    Buffer.from(`${h}.${p}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(s, "base64url"),
  );
  expect(signed).toBe(true);
  // A tampered claim does not verify: the check above can fail.
  expect(
    verify("sha256", Buffer.from(`${h}.${p}x`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(s, "base64url")),
  ).toBe(false);
  return JSON.parse(Buffer.from(p, "base64url").toString()) as { aud: string; exp: number; sub: string };
}

const until = <T>(what: string, f: () => Promise<T | undefined | false>, timeout = 60_000): Promise<T> =>
  waitFor(f, { what, timeout, every: 50 });

const pushRows = (messageId: string) =>
  db().notification.findMany({
    where: { messageId, channel: "push", kind: "new" },
    include: { user: { select: { email: true } }, attemptLog: { orderBy: { id: "asc" } } },
  });

const devices: Record<string, Device> = {};
const deviceIds: Record<string, string> = {};
let servedKey = "";

beforeAll(async () => {
  scripts.set("/mia-2", [410]);
  scripts.set("/gus-1", [410]);
  scripts.set("/rae-1", [503]);
  for (const [handle, paths] of Object.entries({
    mia: ["/mia-1", "/mia-2"],
    gus: ["/gus-1"],
    rae: ["/rae-1"],
    pat: ["/pat-1"],
    lou: ["/lou-1"],
  })) {
    const cookie = await sessionOf(handle);
    for (const path of paths) {
      const device = syntheticDevice(path);
      const res = await api("POST", "/api/push/subscriptions", cookie, device.json);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      devices[path] = device;
      deviceIds[path] = res.body?.id as string;
    }
  }
});

describe("the VAPID key", () => {
  it("one key pair however many ask at once, served to a signed-in person only, the private key sealed", async () => {
    const cookie = await sessionOf("mia");
    const answers = await Promise.all([1, 2, 3].map(() => api("GET", "/api/push/key", cookie)));
    servedKey = answers[0]?.body?.public_key as string;
    expect(Buffer.from(servedKey, "base64url")).toHaveLength(65);
    for (const a of answers) expect(a).toEqual({ status: 200, body: { public_key: servedKey } });
    const rows = await db().hubVapidKeys.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.publicKey).toBe(servedKey);
    expect(rows[0]?.privateKeySealed).toMatch(/^v2\./);
    expect((await api("GET", "/api/push/key", null)).body?.error?.code).toBe("unauthenticated");
  });
});

describe("subscriptions", () => {
  it("a bad subscription, a cross-site or signed-out post is refused and stores nothing", async () => {
    const cookie = await sessionOf("mia");
    const before = await db().pushSubscription.count();
    const good = syntheticDevice("/never");
    const cases: Array<[unknown, string | null, string, number, string]> = [
      [{ ...good.json, endpoint: "http://127.0.0.1:9/x" }, cookie, hub.url, 400, "validation_error"], // plaintext, not allowlisted
      [{ ...good.json, endpoint: "ftp://push.example/x" }, cookie, hub.url, 400, "validation_error"],
      // https, but not a known push service (nor in MA2H_PUSH_SERVICES): the Hub would POST anywhere.
      [{ ...good.json, endpoint: "https://push.example/x" }, cookie, hub.url, 400, "validation_error"],
      [
        { ...good.json, keys: { ...good.json.keys, auth: randomBytes(8).toString("base64url") } },
        cookie,
        hub.url,
        400,
        "validation_error",
      ],
      [
        {
          ...good.json,
          keys: { ...good.json.keys, p256dh: Buffer.concat([Buffer.from([4]), randomBytes(64)]).toString("base64url") },
        },
        cookie,
        hub.url,
        400,
        "validation_error",
      ],
      [good.json, cookie, "https://evil.example", 403, "not_authorized"],
      [good.json, null, hub.url, 401, "unauthenticated"],
    ];
    for (const [body, c, origin, status, code] of cases) {
      const res = await api("POST", "/api/push/subscriptions", c, body, origin);
      expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(body)).toEqual({ status, code });
    }
    expect(await db().pushSubscription.count()).toBe(before);
    // The auth secret is sealed at rest; the audit row names the device, never its endpoint or keys.
    const row = await db().pushSubscription.findUniqueOrThrow({ where: { id: deviceIds["/mia-1"] } });
    expect(row.authSealed).toMatch(/^v2\./);
    expect(row.authSealed).not.toContain(devices["/mia-1"]!.json.keys.auth);
    const audit = await db().auditEvent.findMany({ where: { event: "push.device_added", userId: row.userId } });
    expect(audit).toHaveLength(2);
    expect(JSON.stringify(audit.map((a) => a.detail))).not.toContain(serviceOrigin);
  });

  it("another person's DELETE is 404 and removes nothing", async () => {
    const res = await api("DELETE", `/api/push/subscriptions/${deviceIds["/mia-1"]}`, await sessionOf("pat"));
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 404, code: "not_found" });
    expect(await db().pushSubscription.count({ where: { id: deviceIds["/mia-1"] } })).toBe(1);
  });
});

describe("an ask pushed to each device", () => {
  let item: { id: string; title: string };
  const expiresAt = new Date(Date.now() + 3600_000);

  beforeAll(async () => {
    const title = `Ship v2 ${Date.now()}?`;
    const res = await hub
      .agent(A, "acme")
      .post("/v1/messages", envelope("ask", A, { title, priority: "high", expires_at: expiresAt.toISOString() }));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    item = { id: res.body.id as string, title };
  });

  it("the body decrypts with the device's keys to exactly {id, title, priority, actions}, under a valid VAPID JWT", async () => {
    const [arrival] = await until("the push to mia's first device", async () => {
      const got = arrivals.filter((a) => a.path === "/mia-1");
      return got.length > 0 && got;
    });
    const a = arrival as Arrival;
    expect(a.headers["content-encoding"]).toBe("aes128gcm");
    expect(a.headers["content-type"]).toBe("application/octet-stream");
    expect(a.headers.urgency).toBe("normal"); // high → normal; urgent alone wakes a device (RFC 8030 §5.3)
    const ttl = Number(a.headers.ttl);
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600); // until the item expires
    expect(a.headers.topic).toBe(item.id.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 32));
    // A two-option select: its notification carries one button per option, each with a single-use
    // token (docs/notifications.md "Answering from the notification").
    const token = expect.stringMatching(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(decrypt(devices["/mia-1"]!, a.body))).toStrictEqual({
      id: item.id,
      title: item.title,
      priority: "high",
      actions: [
        { value: "ship", label: "Ship", token },
        { value: "hold", label: "Hold", token },
      ],
    });
    // Another device's keys cannot read it.
    expect(() => decrypt(devices["/mia-2"]!, a.body)).toThrow();
    const claims = verifyVapid(a.headers.authorization as string, servedKey);
    expect(claims.aud).toBe(serviceOrigin);
    expect(claims.sub).toBe(SUBJECT);
    const now = Date.now() / 1000;
    expect(claims.exp).toBeGreaterThan(now);
    expect(claims.exp).toBeLessThanOrEqual(now + 24 * 3600);
  });

  it("channel preferences apply: no push row or request for askTask off or a higher minimum priority", async () => {
    const rows = await until("the push rows", async () => {
      const r = await pushRows(item.id);
      return r.length === 3 && r;
    });
    expect(rows.map((r) => r.user.email).sort()).toEqual(["gus@acme.test", "mia@acme.test", "rae@acme.test"]);
    expect(arrivals.filter((a) => a.path === "/pat-1" || a.path === "/lou-1")).toEqual([]);
  });

  it("a 410 removes that device; the row is sent when another device accepted, failed when none is left", async () => {
    const rows = await until("mia's and gus's rows settled", async () => {
      const r = (await pushRows(item.id)).filter((n) => n.user.email !== "rae@acme.test");
      return r.every((n) => n.status === "sent" || n.status === "failed") && r;
    });
    const mia = rows.find((r) => r.user.email === "mia@acme.test")!;
    const gus = rows.find((r) => r.user.email === "gus@acme.test")!;
    expect({ status: mia.status, attempts: mia.attemptLog.length }).toEqual({ status: "sent", attempts: 1 });
    expect({ status: gus.status, error: gus.lastErrorClass }).toEqual({ status: "failed", error: "push_gone" });
    expect(gus.attemptLog.map((l) => [l.outcome, l.responseCode])).toEqual([["failed", 410]]);
    const left = await db().pushSubscription.findMany({ where: { id: { in: Object.values(deviceIds) } } });
    expect(left.map((d) => d.id).sort()).toEqual(
      ["/mia-1", "/rae-1", "/pat-1", "/lou-1"].map((p) => deviceIds[p]).sort(),
    );
    expect(left.find((d) => d.id === deviceIds["/mia-1"])?.lastUsedAt).not.toBeNull();
    const gone = await db().auditEvent.findMany({ where: { event: "push.device_removed", userId: gus.userId } });
    expect(gone.map((e) => e.actor)).toEqual(["system:push_service"]);
  });

  it("a 503 is retried: the row goes back to pending, then is sent", async () => {
    const rae = await until("rae's row sent", async () => {
      const r = (await pushRows(item.id)).find((n) => n.user.email === "rae@acme.test");
      return r?.status === "sent" && r;
    });
    expect(rae.attemptLog.map((l) => [l.outcome, l.errorClass, l.responseCode])).toEqual([
      ["retry", "push_http_503", 503],
      ["sent", null, 201],
    ]);
    const got = arrivals.filter((a) => a.path === "/rae-1");
    expect(got).toHaveLength(2);
    expect(JSON.parse(decrypt(devices["/rae-1"]!, got[1]!.body)).id).toBe(item.id);
  });

  it("the person removes their own device; it gets no more pushes", async () => {
    const res = await api("DELETE", `/api/push/subscriptions/${deviceIds["/mia-1"]}`, await sessionOf("mia"));
    expect(res).toEqual({ status: 200, body: { id: deviceIds["/mia-1"], removed: true } });
    expect(await db().pushSubscription.count({ where: { userId: (await userOf("mia")).id } })).toBe(0);
    const again = await api("DELETE", `/api/push/subscriptions/${deviceIds["/mia-1"]}`, await sessionOf("mia"));
    expect(again.status).toBe(404);
  });
});
