/**
 * The one sanitizing Markdown profile (§9.6), shared by the inbox (components/Markdown.tsx, React)
 * and the notification mail (lib/markdown/mail-html.ts, static HTML). Agent text is untrusted:
 * - no raw HTML, ever: remark-rehype drops it (neither renderer enables raw HTML) and rehype-sanitize
 *   then applies a strict allow list of the elements CommonMark produces (no img, no attributes
 *   beyond href/title/start/align and `language-*` classes);
 * - images are never fetched: `![alt](src)` becomes a plain link to `src` before sanitizing;
 * - URLs: only http(s), mailto and relative ones survive (javascript:, data:, vbscript:, … are
 *   dropped, after WHATWG parsing so tabs, entities and case do not smuggle them).
 * Framework-free: the React parts (how a link looks) stay in the component.
 */
import type { Element, ElementContent, Root, RootContent } from "hast";
import rehypeSanitize, { type Options as SanitizeSchema } from "rehype-sanitize";
import type { PluggableList } from "unified";

export const SANITIZE_SCHEMA: SanitizeSchema = {
  tagNames: [
    "a",
    "blockquote",
    "br",
    "code",
    "del",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "li",
    "ol",
    "p",
    "pre",
    "strong",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
  ],
  attributes: {
    a: ["href", "title", ["dataMa2hImage", "true"]],
    code: [["className", /^language-[\w+-]+$/]],
    ol: ["start"],
    td: ["align"],
    th: ["align"],
  },
  protocols: { href: ["http", "https", "mailto"] },
  ancestors: { tbody: ["table"], td: ["table"], th: ["table"], thead: ["table"], tr: ["table"], li: ["ol", "ul"] },
  strip: ["script", "style"],
  clobberPrefix: "user-content-",
  clobber: ["name", "id"],
  required: {},
  allowComments: false,
  allowDoctypes: false,
};

const BASE = "https://ma2h.invalid";
const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

/** The URL as given when it is http(s), mailto or relative; otherwise "" (dropped). */
export function safeUrl(raw: string): string {
  const url = raw.trim();
  if (url === "") return "";
  try {
    return SAFE_PROTOCOLS.has(new URL(url, BASE).protocol) ? url : "";
  } catch {
    return "";
  }
}

/** Host of an absolute or protocol-relative link (external), or null for one within the Hub. */
export function externalHost(href: string): string | null {
  try {
    const u = new URL(href, BASE);
    if (u.protocol === "mailto:") return u.pathname;
    return u.origin === BASE ? null : u.host;
  } catch {
    return null;
  }
}

/** rehype plugin: every `img` becomes a link to its source — shown, never fetched. */
export function imagesAsLinks() {
  const walk = (nodes: Array<RootContent | ElementContent>) => {
    for (const node of nodes) {
      if (node.type !== "element") continue;
      if (node.tagName === "img") imageToLink(node);
      else walk(node.children);
    }
  };
  return (tree: Root) => walk(tree.children);
}

function imageToLink(node: Element): void {
  const p = node.properties;
  const src = typeof p.src === "string" ? p.src : "";
  const alt = typeof p.alt === "string" && p.alt ? p.alt : src;
  node.tagName = "a";
  node.properties = { href: src, title: typeof p.title === "string" ? p.title : undefined, dataMa2hImage: "true" };
  node.children = [{ type: "text", value: `image: ${alt}` }];
}

/** The rehype plugins every renderer of agent Markdown runs, in this order, after remark-rehype. */
export const SANITIZING_REHYPE_PLUGINS: PluggableList = [imagesAsLinks, [rehypeSanitize, SANITIZE_SCHEMA]];
