/**
 * Agent Markdown as the HTML of a notification mail (docs/notifications.md "What a mail
 * contains"): the same parse and the same sanitizing plugins as the inbox (lib/markdown/sanitize.ts),
 * serialized to static HTML. One step more than the inbox, for a mail only: the agent's links are
 * shown, not linked — each becomes its text followed by its URL in parentheses — so the only
 * clickable links in a Hub mail are the Hub's own (the item, the answer links) and an agent cannot
 * dress a link to elsewhere as an answer button (docs/decisions/notifications.md "Notifications: answering from
 * the mail"). Images were already turned into links to their source, so they end as text too: no
 * remote image is ever fetched by a mail client.
 */
import type { Element, ElementContent, Root, RootContent } from "hast";
import rehypeStringify from "rehype-stringify";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified } from "unified";
import { SANITIZING_REHYPE_PLUGINS, safeUrl } from "./sanitize";

function textOf(nodes: ElementContent[]): string {
  return nodes.map((n) => (n.type === "text" ? n.value : n.type === "element" ? textOf(n.children) : "")).join("");
}

/** An `a` as its children, then ` (url)` unless the text already is the URL; an unsafe URL is dropped. */
function unlink(a: Element): ElementContent[] {
  const href = typeof a.properties.href === "string" ? safeUrl(a.properties.href) : "";
  if (!href || textOf(a.children).trim() === href) return a.children;
  return [...a.children, { type: "text", value: ` (${href})` }];
}

/** rehype plugin: every link becomes plain text (see the file comment). Runs after sanitizing. */
function linksAsText() {
  const walk = (parent: Root | Element) => {
    const out: Array<RootContent | ElementContent> = [];
    for (const node of parent.children) {
      if (node.type === "element") {
        walk(node);
        if (node.tagName === "a") {
          out.push(...unlink(node));
          continue;
        }
      }
      out.push(node);
    }
    parent.children = out as typeof parent.children;
  };
  return (tree: Root) => walk(tree);
}

const processor = unified()
  .use(remarkParse)
  .use(remarkRehype) // raw HTML is dropped here (allowDangerousHtml stays off)
  .use(SANITIZING_REHYPE_PLUGINS)
  .use(linksAsText)
  .use(rehypeStringify)
  .freeze();

/** Sanitized HTML for a mail: no raw HTML, script, image or foreign link survives. */
export function markdownToMailHtml(markdown: string): string {
  return String(processor.processSync(markdown));
}
