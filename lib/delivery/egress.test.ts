/**
 * §9.4 SSRF corpus. Every attack URL must be refused with the right error class before
 * any socket exists (the connect tripwire sees nothing and no loopback listener accepts anything),
 * and beside each one a control post of the same shape to the allowlisted receiver must arrive —
 * so a refusal is the guard working, not the harness being broken.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postJson, type EgressErrorClass } from "./egress";
import { fakeDns, installTripwire, listen, type Listener } from "./egress.harness";

const BODY = JSON.stringify({ resolution_id: "res_canary", state: "STATE-CANARY" });
const HEADERS = { Authorization: "Bearer TOKEN-CANARY", "MA2H-Signature": "t=1,jti=j,v1=x" };

let receiver: Listener; // the allowlisted control receiver, port {R}
let canary: Listener; // 127.0.0.1:{P} — where loopback-aimed attacks would land
let canary6: Listener; // [::1]:{P6}
let tripwire: ReturnType<typeof installTripwire>;

const ZONE = {
  "receiver.test": ["127.0.0.1"],
  localhost: ["127.0.0.1", "::1"],
  "internal.test": ["10.0.0.5"],
  "metadata.google.internal": ["169.254.169.254"],
  "ula.test": ["fd00::1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "nat64.test": ["64:ff9b::7f00:1"],
  "sixtofour.test": ["2002:a9fe:a9fe::1"],
  "cgnat.test": ["100.64.0.1"],
  "zero.test": ["0.0.0.0"],
  "linklocal6.test": ["fe80::1%lo"],
  "mixed.test": ["93.184.216.34", "127.0.0.1"],
  "mixed6.test": ["2606:4700:4700::1111", "fd00::1"],
  "receiver.test.evil.test": ["127.0.0.1"],
  "garbage.test": ["not-an-address"],
  "octal.test": ["0177.0.0.1"],
  "empty.test": [],
};

/** [url, expected errorClass]; {P} {P6} {R} are the listeners' ports. */
const CORPUS: Array<[string, EgressErrorClass]> = [
  // alternate IPv4 encodings (WHATWG normalises, the policy judges the canonical address)
  ["http://2130706433:{P}/", "refused_address"],
  ["http://0177.0.0.1:{P}/", "refused_address"],
  ["http://0x7f000001:{P}/", "refused_address"],
  ["http://0x7f.1:{P}/", "refused_address"],
  ["http://0x7f.0x0.0x0.0x1:{P}/", "refused_address"],
  ["http://017700000001:{P}/", "refused_address"],
  ["http://127.1:{P}/", "refused_address"],
  ["http://127.0.1:{P}/", "refused_address"],
  ["http://127.0.0.1.:{P}/", "refused_address"],
  ["http://①②⑦.0.0.1:{P}/", "refused_address"],
  ["http://127.0.0.1:{P}/", "refused_address"],
  ["http://127.0.0.1:{R}/", "refused_address"], // the receiver's socket, but not its allowlisted origin
  ["http://0.0.0.0:{P}/", "refused_address"],
  ["http://0:{P}/", "refused_address"],
  // IPv6 literals and every IPv4-embedding form
  ["http://[::1]:{P6}/", "refused_address"],
  ["http://[::]:{P6}/", "refused_address"],
  ["http://[::ffff:127.0.0.1]:{P}/", "refused_address"],
  ["http://[::ffff:7f00:1]:{P}/", "refused_address"],
  ["http://[0:0:0:0:0:ffff:127.0.0.1]:{P}/", "refused_address"],
  ["http://[::ffff:0:127.0.0.1]:{P}/", "refused_address"],
  ["http://[::127.0.0.1]:{P}/", "refused_address"],
  ["http://[64:ff9b::7f00:1]:{P}/", "refused_address"],
  ["http://[64:ff9b::169.254.169.254]/", "refused_address"],
  ["http://[2002:7f00:1::]:{P}/", "refused_address"],
  ["http://[2002:a9fe:a9fe::]/", "refused_address"],
  ["http://[::ffff:a9fe:a9fe]/", "refused_address"],
  ["http://[fd00::1]/", "refused_address"],
  ["http://[fe80::1]/", "refused_address"],
  ["http://[fd00:ec2::254]/latest/meta-data/", "refused_address"],
  // metadata, private, CGNAT, multicast, reserved
  ["http://169.254.169.254/latest/meta-data/iam/", "refused_address"],
  ["http://100.100.100.200/latest/meta-data/", "refused_address"],
  ["http://168.63.129.16/machine?comp=goalstate", "refused_address"],
  ["http://100.64.0.1/", "refused_address"],
  ["http://10.0.0.1/", "refused_address"],
  ["http://172.16.0.1/", "refused_address"],
  ["http://192.168.1.1/", "refused_address"],
  ["http://224.0.0.1/", "refused_address"],
  ["http://255.255.255.255/", "refused_address"],
  ["https://198.18.0.1/", "refused_address"],
  // names that resolve (via the injected resolver) somewhere forbidden
  ["http://localhost:{P}/", "refused_address"],
  ["http://internal.test/", "refused_address"],
  ["http://metadata.google.internal/computeMetadata/v1/", "refused_address"],
  ["http://ula.test/", "refused_address"],
  ["http://mapped.test:{P}/", "refused_address"],
  ["http://nat64.test:{P}/", "refused_address"],
  ["http://sixtofour.test/", "refused_address"],
  ["http://cgnat.test/", "refused_address"],
  ["http://zero.test:{P}/", "refused_address"],
  ["http://linklocal6.test/", "refused_address"],
  ["http://mixed.test:{P}/", "refused_address"], // one public + one private answer
  ["http://mixed6.test/", "refused_address"],
  ["http://garbage.test/", "refused_address"], // a resolver answer that is no IP fails closed
  ["http://octal.test:{P}/", "refused_address"], // …and so does a non-canonical one
  // the allowlist is exact: near misses of http://receiver.test:{R}
  ["http://receiver.test.evil.test:{R}/", "refused_address"],
  ["http://receiver.test:{P}/", "refused_address"],
  ["https://receiver.test:{R}/", "refused_address"],
  // userinfo and parser-confusion tricks
  ["http://receiver.test@127.0.0.1:{P}/", "refused_url"],
  ["http://good.example:pw@receiver.test:{R}/", "refused_url"],
  ["http://@receiver.test:{R}/", "refused_url"],
  ["http://127.0.0.1:{P}#@receiver.test/", "refused_address"],
  ["http://127.0.0.1:{P}\\@receiver.test/", "refused_address"],
  ["http://[fe80::1%25lo]/", "refused_url"],
  // other schemes and non-URLs
  ["ftp://127.0.0.1:{P}/", "refused_url"],
  ["file:///etc/passwd", "refused_url"],
  ["gopher://127.0.0.1:{P}/_GET", "refused_url"],
  ["data:application/json,{}", "refused_url"],
  ["javascript:alert(1)", "refused_url"],
  ["//127.0.0.1:{P}/", "refused_url"],
  ["not a url", "refused_url"],
  // a name nobody answers for
  ["http://nx.test/", "dns_error"],
  ["http://empty.test/", "dns_error"],
];

const fill = (u: string) =>
  u
    .replaceAll("{P}", String(canary.port))
    .replaceAll("{P6}", String(canary6.port))
    .replaceAll("{R}", String(receiver.port));
const totalConnections = () => receiver.connections + canary.connections + canary6.connections;

beforeAll(async () => {
  receiver = await listen("127.0.0.1");
  canary = await listen("127.0.0.1");
  canary6 = await listen("::1");
});
afterAll(async () => {
  await Promise.all([receiver, canary, canary6].map((l) => l.close()));
});
beforeEach(() => {
  tripwire = installTripwire();
});
afterEach(() => tripwire.restore());

describe("SSRF corpus: refused before any connection, while the control arrives", () => {
  it("has at least 40 entries", () => expect(CORPUS.length).toBeGreaterThanOrEqual(40));

  it.each(CORPUS)("%s → %s", async (raw, errorClass) => {
    const dns = fakeDns(ZONE);
    const options = {
      headers: HEADERS,
      lookup: dns,
      allowLoopback: new Set([`http://receiver.test:${receiver.port}`]),
      timeoutMs: 3000,
    };
    const before = totalConnections();

    const attack = await postJson(fill(raw), BODY, options);
    expect(attack).toMatchObject({ ok: false, errorClass });
    expect(tripwire.attempts).toEqual([]);
    expect(totalConnections()).toBe(before);
    expect(JSON.stringify(attack)).not.toMatch(/CANARY/); // never echoes body or credentials
    expect(dns.calls.length).toBeLessThanOrEqual(1);

    const control = await postJson(`http://receiver.test:${receiver.port}/hook?x=1`, BODY, options);
    expect(control).toMatchObject({ ok: true, status: 200 });
    expect(tripwire.attempts).toEqual([{ host: "127.0.0.1", port: receiver.port }]);
    expect(receiver.requests.at(-1)).toMatchObject({ method: "POST", url: "/hook?x=1", body: BODY });
    expect(canary.connections + canary6.connections).toBe(0);
  });

  it("IP literals never reach the resolver", async () => {
    const dns = fakeDns(ZONE);
    for (const raw of ["http://2130706433:{P}/", "http://[::ffff:7f00:1]:{P}/", "http://169.254.169.254/"]) {
      await postJson(fill(raw), BODY, { headers: HEADERS, lookup: dns });
    }
    expect(dns.calls).toEqual([]);
  });
});

describe("the dev allowlist is exact and waives only loopback", () => {
  const post = (url: string, allow: string[], zone: Record<string, string[]> = ZONE) =>
    postJson(url, BODY, { headers: HEADERS, lookup: fakeDns(zone), allowLoopback: new Set(allow) });

  it("an IP-literal origin on the list arrives; other ports, schemes and hosts do not", async () => {
    const origin = `http://127.0.0.1:${receiver.port}`;
    expect(await post(`${origin}/`, [origin])).toMatchObject({ ok: true, status: 200 });
    expect(await post(`http://127.0.0.1:${canary.port}/`, [origin])).toMatchObject({ errorClass: "refused_address" });
    expect(await post(`https://127.0.0.1:${receiver.port}/`, [origin])).toMatchObject({
      errorClass: "refused_address",
    });
    expect(await post(`http://127.0.0.2:${receiver.port}/`, [origin])).toMatchObject({ errorClass: "refused_address" });
    expect(await post(`http://[::1]:${canary6.port}/`, [origin])).toMatchObject({ errorClass: "refused_address" });
    expect(tripwire.attempts).toEqual([{ host: "127.0.0.1", port: receiver.port }]);
    expect(canary.connections + canary6.connections).toBe(0);
  });

  it("an entry that only string-prefixes the origin, or carries a path, allows nothing", async () => {
    const url = `http://127.0.0.1:${receiver.port}/`;
    const prefix = `http://127.0.0.1:${String(receiver.port).slice(0, -1)}`;
    expect(await post(url, [prefix])).toMatchObject({ errorClass: "refused_address" });
    expect(await post(url, [`${url}hook`])).toMatchObject({ errorClass: "refused_address" });
    expect(await post(url, [`http://x@127.0.0.1:${receiver.port}`])).toMatchObject({ errorClass: "refused_address" });
    expect(tripwire.attempts).toEqual([]);
  });

  it("IPv6 loopback works the same way: literal and named origins on the list arrive at [::1]", async () => {
    const v6 = await listen("::1");
    try {
      const literal = `http://[::1]:${v6.port}`;
      expect(await post(`${literal}/`, [literal])).toMatchObject({ ok: true, status: 200 });
      const named = `http://receiver6.test:${v6.port}`;
      expect(await post(`${named}/`, [named], { "receiver6.test": ["::1"] })).toMatchObject({ ok: true, status: 200 });
      expect(v6.requests.map((r) => r.headers.host)).toEqual([`[::1]:${v6.port}`, `receiver6.test:${v6.port}`]);
      expect(tripwire.attempts).toEqual([
        { host: "::1", port: v6.port },
        { host: "::1", port: v6.port },
      ]);
    } finally {
      await v6.close();
    }
  });

  it("equivalent spellings of the same origin match (canonical comparison)", async () => {
    const allow = [`HTTP://Receiver.TEST:${receiver.port}/`];
    expect(await post(`http://receiver.test:${receiver.port}/`, allow)).toMatchObject({ ok: true, status: 200 });
  });

  it("an allowlisted origin resolving to metadata, private or mapped-loopback space is still refused", async () => {
    const allow = [`http://receiver.test:${receiver.port}`];
    const url = `http://receiver.test:${receiver.port}/`;
    for (const answer of ["169.254.169.254", "10.0.0.5", "::ffff:127.0.0.1", "0.0.0.0"]) {
      expect(await post(url, allow, { "receiver.test": [answer] })).toMatchObject({ errorClass: "refused_address" });
    }
    expect(tripwire.attempts).toEqual([]);
  });
});

describe("DNS rebinding: one lookup per delivery, and the connection goes to the vetted address", () => {
  let pinA: Listener;
  let pinB: Listener;
  beforeAll(async () => {
    pinA = await listen("127.0.0.1");
    pinB = await listen("127.0.0.2", undefined, { port: pinA.port });
  });
  afterAll(async () => {
    await Promise.all([pinA.close(), pinB.close()]);
  });

  it("public first, then 127.0.0.1: the socket is aimed at the public answer it vetted, never loopback", async () => {
    const dns = fakeDns({ "rebind.test": [["93.184.216.34"], ["127.0.0.1"]] });
    const result = await postJson(`http://rebind.test:${canary.port}/`, BODY, { headers: HEADERS, lookup: dns });
    // The tripwire stopped the off-host connect before any packet; what matters is where it pointed.
    expect(result.ok).toBe(false);
    expect(tripwire.attempts).toEqual([{ host: "93.184.216.34", port: canary.port }]);
    expect(dns.calls).toEqual(["rebind.test"]);
    expect(canary.connections).toBe(0);
  });

  it("127.0.0.1 first, then public: refused at delivery time, before any connection", async () => {
    const dns = fakeDns({ "rebind.test": [["127.0.0.1"], ["93.184.216.34"]] });
    const result = await postJson(`http://rebind.test:${canary.port}/`, BODY, { headers: HEADERS, lookup: dns });
    expect(result).toMatchObject({ ok: false, errorClass: "refused_address" });
    expect(tripwire.attempts).toEqual([]);
    expect(dns.calls).toEqual(["rebind.test"]);
    expect(canary.connections).toBe(0);
  });

  it("pinned on real sockets: the answer flips after the vetting lookup, the request still lands on the vetted IP", async () => {
    const dns = fakeDns({ "rebind.test": [["127.0.0.1"], ["127.0.0.2"]] });
    const options = { headers: HEADERS, lookup: dns, allowLoopback: new Set([`http://rebind.test:${pinA.port}`]) };
    expect(await postJson(`http://rebind.test:${pinA.port}/`, BODY, options)).toMatchObject({ ok: true, status: 200 });
    expect(dns.calls).toEqual(["rebind.test"]);
    expect(tripwire.attempts).toEqual([{ host: "127.0.0.1", port: pinA.port }]);
    expect([pinA.requests.length, pinB.connections]).toEqual([1, 0]);
    expect(pinA.requests[0]!.headers.host).toBe(`rebind.test:${pinA.port}`);

    // The next delivery resolves afresh (delivery-time vetting), and is pinned to its own answer.
    expect(await postJson(`http://rebind.test:${pinA.port}/`, BODY, options)).toMatchObject({ ok: true, status: 200 });
    expect(dns.calls).toEqual(["rebind.test", "rebind.test"]);
    expect([pinA.requests.length, pinB.requests.length]).toEqual([1, 1]);
  });
});
