/**
 * The mail's Markdown HTML (lib/markdown/mail-html.ts): the inbox's sanitizing profile, plus links
 * as text. Run against the same payload corpus idea as test/markdown.test.ts: nothing executable,
 * no image, no raw HTML and no clickable link of the agent's survives.
 */
import { describe, expect, it } from "vitest";
import { markdownToMailHtml } from "./mail-html";

const PAYLOADS = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "<svg onload=alert(1)>",
  "<iframe src=javascript:alert(1)></iframe>",
  '<a href="javascript:alert(1)">x</a>',
  "[x](javascript:alert(1))",
  "[x](java&#x09;script:alert(1))",
  "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "![x](https://evil.example/x.png)",
  '[x](https://ok.example/ "title\\" onmouseover=alert(1)")',
  "<style>body{background:url(https://evil.example/)}</style>",
  "<details open ontoggle=alert(1)>",
  '<form action="https://evil.example"><button>go</button></form>',
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
];

describe("markdownToMailHtml", () => {
  it.each(PAYLOADS)("renders %j inert, with no element that links or loads", (payload) => {
    const out = markdownToMailHtml(payload);
    expect(out).not.toMatch(/<(script|img|svg|iframe|style|details|form|button|math|a|object|embed)\b/i);
    expect(out).not.toMatch(/\son\w+\s*=/i);
    expect(out).not.toMatch(/(href|src)=/i);
  });

  it("keeps the Markdown's structure and drops raw HTML", () => {
    const out = markdownToMailHtml("# Plan\n\nShip **v2** and _then_ `rollback`?\n\n- one\n- two\n\n<b>raw</b> text");
    expect(out).toContain("<h1>Plan</h1>");
    expect(out).toContain("<strong>v2</strong>");
    expect(out).toContain("<em>then</em>");
    expect(out).toContain("<code>rollback</code>");
    expect(out).toContain("<li>one</li>");
    expect(out).toContain("<p>raw text</p>");
  });

  it("an agent's link is shown as its text and its URL, not linked; an unsafe URL is dropped", () => {
    expect(markdownToMailHtml("see [the docs](https://docs.example/a?b=1)")).toBe(
      "<p>see the docs (https://docs.example/a?b=1)</p>",
    );
    expect(markdownToMailHtml("<https://docs.example/>")).toBe("<p>https://docs.example/</p>");
    expect(markdownToMailHtml("[Approve](javascript:alert(1))")).toBe("<p>Approve</p>");
  });

  it("an image becomes text naming it (never fetched)", () => {
    expect(markdownToMailHtml("![chart](https://evil.example/x.png)")).toBe(
      "<p>image: chart (https://evil.example/x.png)</p>",
    );
  });

  it("code keeps its text escaped", () => {
    expect(markdownToMailHtml("```\n<script>alert(1)</script>\n```")).toMatch(/&#x3C;script>alert\(1\)&#x3C;\/script>/);
  });
});
