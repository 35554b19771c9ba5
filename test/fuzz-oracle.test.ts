/** The fuzz oracle itself (pure): it must catch what it claims to, or the fuzz run proves nothing. */
// covers: scripts/fuzz/oracle.ts, scripts/fuzz/cases.ts, scripts/fuzz/send.ts
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeCase, type FuzzContext, fuzzCase } from "../scripts/fuzz/cases";
import { envelopeProblem, isProtocolTarget, judge } from "../scripts/fuzz/oracle";
import { parseResponse, type SendOutcome } from "../scripts/fuzz/send";

const answer = (raw: string): SendOutcome => {
  const response = parseResponse(Buffer.from(raw, "latin1"));
  if (!response) throw new Error("unparseable test response");
  return { ok: true, response };
};
const envelope = (status: number, code: string) => {
  const body = JSON.stringify({ error: { code, message: "m" } });
  return answer(
    `HTTP/1.1 ${status} X\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
  );
};

describe("the fuzz oracle", () => {
  it("names the protocol surface by its path alone", () => {
    expect(["/v1", "/v1/messages", "/v1?x", "/.well-known/ma2h", "/.well-known"].every(isProtocolTarget)).toBe(true);
    expect(["/v10", "/inbox", "/signin", "/well-known/ma2h", "*", "/.well-knownx"].some(isProtocolTarget)).toBe(false);
  });

  it("passes a §8.5 envelope whose code matches the status, and a page's HTML 404", () => {
    expect(judge("/v1/messages/x", envelope(404, "not_found"))).toBeNull();
    expect(judge("/v1/messages", envelope(422, "invalid_field"))).toBeNull();
    expect(judge("/inbox/x", answer("HTTP/1.1 404 Not Found\r\ncontent-type: text/html\r\n\r\n<html>"))).toBeNull();
    expect(
      judge("/v1/x", answer("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"), { method: "HEAD" }),
    ).toBeNull();
  });

  it("fails a 5xx anywhere, a bare or mismatched 4xx under /v1, and no response", () => {
    expect(judge("/signin", answer("HTTP/1.1 500 Internal\r\ncontent-length: 0\r\n\r\n"))).toBe("status 500");
    expect(judge("/v1/inbox", envelope(503, "unavailable"))).toBe("status 503");
    expect(judge("/v1/messages", answer("HTTP/1.1 405 Method\r\ncontent-length: 0\r\n\r\n"))).toMatch(/not JSON/);
    expect(judge("/v1/messages", envelope(400, "not_found"))).toMatch(/is 404, answered 400/);
    expect(judge("/.well-known/x", envelope(418, "teapot"))).toMatch(/not in the §8.5 table/);
    expect(judge("/v1/messages", { ok: false, error: "ECONNRESET" })).toBe("no response (ECONNRESET)");
    // A hang-up case may go unanswered, but never hang.
    expect(judge("/v1/messages", { ok: false, error: "ECONNRESET" }, { hangUp: true })).toBeNull();
    expect(judge("/v1/messages", { ok: false, error: "timeout" }, { hangUp: true })).toMatch(/timeout/);
  });

  it("reads a chunked body and refuses a non-HTTP answer", () => {
    const chunked = parseResponse(
      Buffer.from(
        'HTTP/1.1 400 Bad\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"err\r\n1f\r\nor":{"code":"x","message":"m"}}\r\n0\r\n\r\n',
      ),
    );
    expect(chunked?.body.toString()).toBe('{"error":{"code":"x","message":"m"}}');
    expect(chunked && envelopeProblem(chunked)).toMatch(/not in the §8.5 table/);
    expect(parseResponse(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n"))).toBeNull();
  });
});

describe("the fuzz cases", () => {
  const context: FuzzContext = {
    slug: "fuzz",
    agentIds: ["fuzz/alpha", "fuzz/beta"],
    agentKeys: { "fuzz/alpha": "ma2h_key_alpha", "fuzz/beta": "ma2h_key_beta" },
    foreignKey: "ma2h_key_other",
    humanToken: "ma2h_pat_owner",
    sessionToken: "session",
    messageIds: ["msg_a", "msg_b"],
    directiveIds: ["dir_a"],
    publicUrl: "http://127.0.0.1:1",
    actions: [{ id: "7f".padEnd(42, "0"), path: "/inbox" }],
  };

  it("are reproducible from the seed, and differ between seeds", () => {
    const draw = (seed: number) => fc.sample(fuzzCase(context), { seed, numRuns: 200 });
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it("reach every route family and keep long-poll waits short", () => {
    const cases = fc.sample(fuzzCase(context), { seed: 1, numRuns: 3000 });
    const families = new Set(cases.map((c) => c.family));
    expect([...families].sort()).toEqual(
      [
        "ack",
        "cancel",
        "directive",
        "directive-read",
        "discovery",
        "drain",
        "hang-up",
        "inbox-ack",
        "page",
        "presence",
        "pull",
        "raw-head",
        "resolve",
        "server-action",
        "submit",
        "unknown-path",
        "wrong-method",
      ].sort(),
    );
    for (const c of cases) {
      if (c.rawHead !== undefined) continue;
      const wait = new URL(c.target, "http://x").searchParams.get("wait");
      if (wait !== null && wait.trim() !== "")
        expect(Number.isFinite(Number(wait)) && Number(wait) > 0.2, c.target).toBe(false);
    }
  });

  it("never print a credential whole", () => {
    const line = describeCase({
      family: "submit",
      method: "POST",
      target: "/v1/messages",
      headers: [
        ["authorization", "Bearer ma2h_key_o-zcPMJSh_Hv22yYyNql4YxkG9"],
        ["cookie", "next-auth.session-token=0123456789abcdef"],
      ],
    });
    expect(line).not.toContain("PMJSh_Hv22yYyNql4YxkG9");
    expect(line).not.toContain("0123456789abcdef");
  });
});
