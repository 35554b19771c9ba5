import { describe, expect, it } from "vitest";
import type { Message } from "../protocol/message";
import { composeMail } from "./compose";
import { classify } from "./smtp";

const ask = {
  ma2h_version: "0.5",
  type: "ask",
  created_at: "2026-12-01T12:00:00Z",
  agent: { id: "bot/a", run_id: "r1" },
  title: "Ship?\nnow",
  body: "<b>bold</b> & more",
  context: [{ kind: "text", text: "CTX" }],
  request: {
    mode: "select",
    options: [
      { value: "s", label: "Ship", description: "DESC" },
      { value: "h", label: "Hold" },
    ],
  },
} as unknown as Message;

describe("composeMail", () => {
  it("subject [priority] title on one line; body escaped in HTML; options and link", () => {
    const m = composeMail(
      { id: "msg_1", title: "Ship?\nnow", priority: "high", sensitive: false },
      ask,
      "https://hub.test",
    );
    expect(m.subject).toBe("[high] Ship? now");
    expect(m.text).toContain("<b>bold</b> & more");
    expect(m.text).toContain("- Ship — DESC");
    expect(m.text).toContain("https://hub.test/inbox/msg_1");
    expect(m.text).not.toContain("CTX");
    expect(m.html).toContain("&#60;b&#62;bold&#60;/b&#62; &#38; more");
    expect(m.html).not.toMatch(/<b>|<img|<script/);
  });

  it("a sensitive item: title, agent and link only", () => {
    const m = composeMail({ id: "msg_2", title: "T", priority: "normal", sensitive: true }, ask, "https://hub.test");
    for (const s of ["bold", "DESC", "Ship", "CTX"]) expect(`${m.text}${m.html}`).not.toContain(s);
    expect(m.text).toContain("bot/a");
    expect(m.text).toContain("https://hub.test/inbox/msg_2");
  });
});

describe("classify", () => {
  it("4xx and network failures are transient, 5xx permanent", () => {
    expect(classify({ responseCode: 451 })).toEqual({ transient: true, errorClass: "smtp_4xx", responseCode: 451 });
    expect(classify({ responseCode: 550, code: "EENVELOPE" })).toMatchObject({
      transient: false,
      errorClass: "smtp_5xx",
    });
    expect(classify({ code: "ETIMEDOUT" })).toMatchObject({ transient: true, errorClass: "timeout" });
    expect(classify({ code: "ECONNECTION" })).toMatchObject({ transient: true, errorClass: "connection" });
    expect(classify(new Error("x"))).toMatchObject({ transient: true, errorClass: "other" });
  });
});
