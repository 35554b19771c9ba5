/**
 * The one Markdown renderer of the app (§9.6). Agent text is untrusted:
 * - no raw HTML, ever: remark-rehype drops it and rehype-raw is not used; rehype-sanitize then
 *   applies a strict allow list of the elements CommonMark produces (no img, no attributes beyond
 *   href/title/start/align and `language-*` classes);
 * - images are never fetched: `![alt](src)` becomes a plain link to `src` before sanitizing;
 * - URLs: only http(s), mailto and relative ones survive (javascript:, data:, vbscript:, … are
 *   dropped, after WHATWG parsing so tabs, entities and case do not smuggle them);
 * - external links open in a new tab with `rel="noopener noreferrer nofollow"` and carry a visible
 *   "↗ host" marker, so nobody follows one without seeing where it goes.
 */
import type { ReactNode } from "react";
import Markdown from "react-markdown";
import rehypeSanitize, { type Options as SanitizeSchema } from "rehype-sanitize";
import type { Element, ElementContent, Root, RootContent } from "hast";

const SCHEMA: SanitizeSchema = {
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
function imagesAsLinks() {
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

function Link({
  href,
  title,
  children,
  ...rest
}: {
  href?: string;
  title?: string;
  children?: ReactNode;
  "data-ma2h-image"?: string;
}) {
  const url = href ? safeUrl(href) : "";
  if (!url) return <span className="md-dead-link">{children}</span>;
  const host = externalHost(url);
  const image = rest["data-ma2h-image"] === "true";
  if (host === null) {
    return (
      <a href={url} title={title} className={image ? "md-image-link" : undefined}>
        {children}
      </a>
    );
  }
  return (
    <a
      href={url}
      title={title}
      target="_blank"
      rel="noopener noreferrer nofollow"
      data-external="true"
      className={image ? "md-image-link" : "md-external"}
    >
      {children}
      <span className="md-host">
        {" "}
        <span className="visually-hidden">(external link)</span>↗ {host}
      </span>
    </a>
  );
}

export function MarkdownView({ children, testId }: { children: string; testId?: string }) {
  return (
    <div className="markdown" data-testid={testId}>
      <Markdown
        skipHtml
        urlTransform={safeUrl}
        rehypePlugins={[imagesAsLinks, [rehypeSanitize, SCHEMA]]}
        components={{ a: Link }}
      >
        {children}
      </Markdown>
    </div>
  );
}
