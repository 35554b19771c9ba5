import { describe, expect, it } from "vitest";
import { BUTTON_VALUE_MAX, buttonValue, escapeMrkdwn, itemMessage, parseButtonValue, type PostItem } from "./blocks";

const inboxUrl = "https://hub.test/inbox/msg_1";
const ask = (over: Partial<PostItem> = {}): PostItem => ({
  id: "msg_1",
  title: "Deploy <prod> & friends",
  priority: "high",
  agentId: "bot/acme",
  type: "ask",
  sensitive: false,
  body: "Body with <https://evil.test|a link> and <!channel>",
  request: {
    mode: "select",
    options: [
      { value: "ship", label: "Ship" },
      { value: "hold", label: "Hold" },
    ],
  },
  ...over,
});
const open = { status: "open" } as const;

type Button = { action_id: string; text: { text: string }; value?: string; url?: string };
const buttons = (m: ReturnType<typeof itemMessage>): Button[] =>
  m.blocks.filter((b) => b.type === "actions").flatMap((b) => b.elements as Button[]);
const answers = (m: ReturnType<typeof itemMessage>) => buttons(m).filter((b) => b.action_id.startsWith("ma2h_answer_"));
const all = (m: ReturnType<typeof itemMessage>) => JSON.stringify(m);

describe("Slack blocks", () => {
  it("escapes &, < and > so no agent text becomes a link or a mention", () => {
    expect(escapeMrkdwn("a <b> & c")).toBe("a &lt;b&gt; &amp; c");
    const m = itemMessage(ask(), { inboxUrl, mayResolve: true, state: open });
    expect(all(m)).not.toContain("<https://evil.test");
    expect(all(m)).not.toContain("<!channel>");
    expect(all(m)).toContain("&lt;!channel&gt;");
    expect(m.text).toBe("[high] Deploy &lt;prod&gt; &amp; friends");
    for (const b of m.blocks.filter((x) => x.type === "section"))
      expect(b.text).toMatchObject({ type: "mrkdwn", verbatim: true });
  });

  it("a select ask: one button per option carrying the item and the value, and Open in inbox", () => {
    const m = itemMessage(ask(), { inboxUrl, mayResolve: true, state: open });
    expect(answers(m).map((b) => [b.text.text, parseButtonValue(b.value as string)])).toEqual([
      ["Ship", { messageId: "msg_1", value: "ship" }],
      ["Hold", { messageId: "msg_1", value: "hold" }],
    ]);
    expect(buttons(m).at(-1)).toMatchObject({ action_id: "ma2h_open", url: inboxUrl });
  });

  it("confirm gets its synthesized Approve/Deny; no buttons without the right to resolve", () => {
    const confirm = ask({ request: { mode: "confirm" } });
    expect(answers(itemMessage(confirm, { inboxUrl, mayResolve: true, state: open })).map((b) => b.text.text)).toEqual([
      "Approve",
      "Deny",
    ]);
    expect(answers(itemMessage(confirm, { inboxUrl, mayResolve: false, state: open }))).toEqual([]);
  });

  it("an option value too long for Slack gets no button; Open in inbox stays", () => {
    const long = "x".repeat(BUTTON_VALUE_MAX);
    const m = itemMessage(
      ask({
        request: {
          mode: "select",
          options: [
            { value: long, label: "Long" },
            { value: "ok", label: "Ok" },
          ],
        },
      }),
      { inboxUrl, mayResolve: true, state: open },
    );
    expect(answers(m).map((b) => b.text.text)).toEqual(["Ok"]);
    for (const b of buttons(m)) expect((b.value ?? "").length).toBeLessThanOrEqual(BUTTON_VALUE_MAX);
    expect(buttonValue("msg_1", long).length).toBeGreaterThan(BUTTON_VALUE_MAX);
  });

  it("sensitive (§9.6): only the title and Open in inbox", () => {
    const m = itemMessage(ask({ sensitive: true }), { inboxUrl, mayResolve: true, state: open });
    expect(answers(m)).toEqual([]);
    expect(all(m)).not.toContain("Body with");
    expect(all(m)).not.toContain("Ship");
    expect(all(m)).not.toContain("bot/acme");
    expect(buttons(m).map((b) => b.action_id)).toEqual(["ma2h_open"]);
  });

  it("an input ask and a task: Open in inbox only", () => {
    for (const item of [ask({ request: { mode: "input" } }), ask({ type: "task", request: undefined })])
      expect(buttons(itemMessage(item, { inboxUrl, mayResolve: true, state: open })).map((b) => b.action_id)).toEqual([
        "ma2h_open",
      ]);
  });

  it("settled: the outcome, who decided and the channel; no answer buttons", () => {
    const state = { status: "answered", outcome: "Hold", decidedBy: "human:mia", channel: "slack" };
    const m = itemMessage(ask(), { inboxUrl, mayResolve: true, state });
    expect(answers(m)).toEqual([]);
    expect(all(m)).toContain("*answered: Hold* — by human:mia via slack");
    expect(m.text).toContain("[answered]");
    const secret = itemMessage(ask({ sensitive: true }), { inboxUrl, mayResolve: true, state });
    expect(all(secret)).not.toContain("Hold");
    expect(all(secret)).toContain("*answered* — by human:mia via slack");
    const expired = itemMessage(ask(), {
      inboxUrl,
      mayResolve: true,
      state: { status: "expired", outcome: null, decidedBy: "system:hub", channel: null },
    });
    expect(all(expired)).toContain("*expired* — by system:hub");
  });

  it("a routed ask names its rules and the people asked, escaped; a sensitive one does not", () => {
    const asked = { rules: ["prod-deploys"], people: ["alice", "bob<x>"] };
    const m = itemMessage(ask({ asked }), { inboxUrl, mayResolve: true, state: open });
    const line = m.blocks.find((b) => b.block_id === "ma2h_asked");
    expect(line).toMatchObject({
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          verbatim: true,
          text: "Asked by the approval policy (rule prod-deploys): alice, bob&lt;x&gt;",
        },
      ],
    });
    // The buttons stay: whoever clicks is checked against their own right (interactions.ts).
    expect(answers(m).map((b) => b.text.text)).toEqual(["Ship", "Hold"]);
    expect(
      all(itemMessage(ask({ asked, sensitive: true }), { inboxUrl, mayResolve: true, state: open })),
    ).not.toContain("alice");
    expect(itemMessage(ask(), { inboxUrl, mayResolve: true, state: open }).blocks.map((b) => b.block_id)).not.toContain(
      "ma2h_asked",
    );
  });

  it("reads back only its own button values", () => {
    expect(parseButtonValue("nope")).toBeNull();
    expect(parseButtonValue(JSON.stringify({ m: 1, v: "x" }))).toBeNull();
  });
});
