import { describe, expect, it } from "vitest";
import type { Message } from "@ma2h/protocol/message";
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
  it("subject [priority] title on one line; the body's raw HTML dropped from the HTML part; options and link", () => {
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
    // The text part is the agent's source, verbatim; the HTML part went through the Markdown pipeline.
    expect(m.html).toMatch(/<p>bold &(#x26|amp); more<\/p>/);
    expect(m.html).not.toMatch(/<b>|<img|<script/);
  });

  const links = [
    { value: "s", label: "Ship", url: "https://hub.test/e/TOKEN-S" },
    { value: "h", label: "Hold", url: "https://hub.test/e/TOKEN-H" },
  ];

  it("answer links: one per option, in the text and as the HTML's links, with the option's description", () => {
    const m = composeMail({ id: "msg_3", title: "T", priority: "normal", sensitive: false }, ask, "https://hub.test", {
      answerLinks: links,
    });
    expect(m.text).toContain("- Ship: https://hub.test/e/TOKEN-S\n  DESC");
    expect(m.text).toContain("- Hold: https://hub.test/e/TOKEN-H");
    expect(m.text).not.toContain("answer in the Hub");
    expect(m.html).toContain('<a href="https://hub.test/e/TOKEN-S">Ship</a> — DESC');
    expect(m.html).toContain('<a href="https://hub.test/e/TOKEN-H">Hold</a>');
    const hrefs = [...m.html.matchAll(/href="([^"]*)"/g)].map((x) => x[1]);
    expect(hrefs).toEqual(["https://hub.test/e/TOKEN-S", "https://hub.test/e/TOKEN-H", "https://hub.test/inbox/msg_3"]);
  });

  it("a sensitive item carries no answer link even when handed some", () => {
    const m = composeMail({ id: "msg_4", title: "T", priority: "normal", sensitive: true }, ask, "https://hub.test", {
      answerLinks: links,
    });
    expect(`${m.text}${m.html}`).not.toContain("/e/");
  });

  it("reminder and escalation: subject prefix and a line saying since when it waits", () => {
    const item = {
      id: "msg_5",
      title: "T",
      priority: "urgent",
      sensitive: false,
      createdAt: new Date("2026-12-01T12:00:30Z"),
    };
    const r = composeMail(item, ask, "https://hub.test", { kind: "reminder" });
    expect(r.subject).toBe("Reminder: [urgent] T");
    expect(r.text.split("\n")[0]).toBe("Reminder: this item is still waiting on you since 2026-12-01 12:00 UTC.");
    const e = composeMail(item, ask, "https://hub.test", { kind: "escalation" });
    expect(e.subject).toBe("Escalation: [urgent] T");
    expect(e.text).toContain("still waiting since 2026-12-01 12:00 UTC");
    expect(e.html).toContain("Escalation: this item is still waiting since 2026-12-01 12:00 UTC");
    expect(composeMail(item, ask, "https://hub.test").subject).toBe("[urgent] T");
  });

  it("a routed ask names its rules and the people asked; under email_answers false it carries no answer link", () => {
    const item = { id: "msg_5", title: "T", priority: "urgent", sensitive: false };
    const routing = { rules: ["prod-deploys", "prod-tag"], eligible: ["alice", "bob"], email_answers: true };
    const routed = composeMail(item, ask, "https://hub.test", { answerLinks: links, routing });
    expect(routed.text).toContain("The account's approval policy (rules prod-deploys, prod-tag) asks: alice, bob.");
    expect(routed.text).toContain("https://hub.test/e/TOKEN-S");
    const off = { ...routing, email_answers: false };
    // Links handed in anyway are left out: the policy, not the caller, decides.
    const m = composeMail(item, ask, "https://hub.test", { answerLinks: links, routing: off, kind: "reminder" });
    expect(m.text).toContain("asks: alice, bob. It is answered in the Hub, not from mail.");
    expect(m.text).toContain("Options (answer in the Hub):\n- Ship — DESC\n- Hold");
    expect(`${m.text}${m.html}`).not.toContain("/e/");
    expect([...m.html.matchAll(/href="([^"]*)"/g)].map((x) => x[1])).toEqual(["https://hub.test/inbox/msg_5"]);
    const many = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, "0")}`);
    const long = composeMail(item, ask, "https://hub.test", { routing: { ...routing, eligible: many } });
    expect(long.text).toContain("asks: p00, p01, p02, p03, p04, p05, p06, p07, p08, p09 and 2 more.");
  });

  it("a sensitive item: title, agent and link only", () => {
    const m = composeMail({ id: "msg_2", title: "T", priority: "normal", sensitive: true }, ask, "https://hub.test");
    for (const s of ["bold", "DESC", "Ship", "CTX"]) expect(`${m.text}${m.html}`).not.toContain(s);
    const routing = { rules: ["r"], eligible: ["alice"], email_answers: true };
    const routed = composeMail(
      { id: "msg_2", title: "T", priority: "normal", sensitive: true },
      ask,
      "https://hub.test",
      {
        routing,
      },
    );
    expect(routed.text).not.toContain("alice");
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
