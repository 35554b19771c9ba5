/**
 * The one Markdown renderer (components/Markdown.tsx, §9.6), rendered to static HTML: no raw HTML,
 * no script-bearing attribute or URL, images as links, external links marked with the right rel.
 * (The browser-level corpus is e2e/xss.spec.ts; this pins the renderer itself, fast.)
 */
// covers: components/Markdown.tsx, lib/markdown/sanitize.ts
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MarkdownView, safeUrl } from "../components/Markdown";

const html = (md: string) => renderToStaticMarkup(createElement(MarkdownView, null, md));

const PAYLOADS = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "<svg onload=alert(1)>",
  "<iframe src=javascript:alert(1)></iframe>",
  '<a href="javascript:alert(1)">x</a>',
  "[x](javascript:alert(1))",
  "[x](JaVaScRiPt:alert(1))",
  "[x](java&#x09;script:alert(1))",
  "[x](&#106;avascript:alert(1))",
  "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[x](vbscript:msgbox(1))",
  "<javascript:alert(1)>",
  "![x](javascript:alert(1))",
  "![x](https://evil.example/x.png)",
  '[x](https://ok.example/ "title\\" onmouseover=alert(1)")',
  "<details open ontoggle=alert(1)>",
  "<style>body{background:url(https://evil.example/)}</style>",
  "```\n<script>alert(1)</script>\n```",
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
  '<form action="https://evil.example"><button>go</button></form>',
];

describe("MarkdownView", () => {
  it.each(PAYLOADS)("renders %j inert", (payload) => {
    const out = html(payload);
    expect(out).not.toMatch(/<(script|img|svg|iframe|style|details|form|button|math|object|embed)\b/i);
    // No event-handler attribute (quoted attribute values are text, whatever they contain).
    expect(out.replace(/="[^"]*"/g, '=""')).not.toMatch(/\son[a-z]+=/i);
    expect(out).not.toMatch(/(href|src)="\s*(javascript|data|vbscript):/i);
  });

  it("renders the controls: a heading, a marked external link, an image as a plain link", () => {
    const out = html(
      "# Control heading\n\nRead [docs](https://example.com/docs).\n\n![Control image](https://example.com/control.png)",
    );
    expect(out).toContain("<h1>Control heading</h1>");
    expect(out).toContain(
      '<a href="https://example.com/docs" target="_blank" rel="noopener noreferrer nofollow" data-external="true"',
    );
    expect(out).toMatch(/↗ example\.com/);
    expect(out).toContain('<a href="https://example.com/control.png"');
    expect(out).toContain("image: Control image");
    expect(out).not.toContain("<img");
  });

  it("keeps links within the Hub plain, and drops every other scheme", () => {
    expect(html("[i](/inbox/msg_1)")).toContain('<a href="/inbox/msg_1">i</a>');
    expect(safeUrl("mailto:a@b.example")).toBe("mailto:a@b.example");
    for (const bad of [
      "javascript:x",
      " JAVASCRIPT:x",
      "java\tscript:x",
      "data:,x",
      "vbscript:x",
      "file:///etc/passwd",
    ])
      expect(safeUrl(bad)).toBe("");
    // Protocol-relative is external, and marked.
    expect(html("[p](//evil.example/x)")).toMatch(/rel="noopener noreferrer nofollow".*↗ evil\.example/);
  });
});
