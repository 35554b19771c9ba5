import { describe, expect, it } from "vitest";
import { slackSignature, verifySlackSignature } from "./signature";

const secret = "8f742231b10e8888abcd99yyyzzz85a5";
const body = "payload=%7B%22type%22%3A%22block_actions%22%7D";

describe("Slack request signatures (v0)", () => {
  it("matches Slack's documented example", () => {
    // From Slack's "Verifying requests from Slack".
    const example =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    expect(slackSignature(secret, "1531420618", example)).toBe(
      "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
    );
  });

  it("accepts a fresh, correct signature; refuses a wrong one, a stale or future one, a missing one", () => {
    const now = 1_800_000_000_000;
    const ts = String(now / 1000);
    const sig = slackSignature(secret, ts, body);
    expect(verifySlackSignature(secret, { timestamp: ts, signature: sig }, body, now)).toBe("ok");
    expect(verifySlackSignature(secret, { timestamp: ts, signature: sig }, `${body}x`, now)).toBe("mismatch");
    expect(verifySlackSignature("other", { timestamp: ts, signature: sig }, body, now)).toBe("mismatch");
    expect(verifySlackSignature(secret, { timestamp: ts, signature: sig.slice(0, -1) }, body, now)).toBe("mismatch");
    expect(verifySlackSignature(secret, { timestamp: ts, signature: sig }, body, now + 301_000)).toBe("stale");
    expect(verifySlackSignature(secret, { timestamp: ts, signature: sig }, body, now - 301_000)).toBe("stale");
    expect(verifySlackSignature(secret, { timestamp: ts, signature: sig }, body, now + 299_000)).toBe("ok");
    expect(verifySlackSignature(secret, { timestamp: null, signature: sig }, body, now)).toBe("missing");
    expect(verifySlackSignature(secret, { timestamp: "abc", signature: sig }, body, now)).toBe("missing");
  });
});
