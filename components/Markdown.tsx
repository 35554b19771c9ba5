/**
 * The one Markdown renderer of the app (§9.6). Agent text is untrusted; the profile — no raw HTML,
 * the sanitize allow list, images as links never fetched, only http(s)/mailto/relative URLs — is
 * lib/markdown/sanitize.ts, shared with the notification mail (lib/markdown/mail-html.ts). What is
 * the inbox's own: external links open in a new tab with `rel="noopener noreferrer nofollow"` and
 * carry a visible "↗ host" marker, so nobody follows one without seeing where it goes.
 */
import type { ReactNode } from "react";
import Markdown from "react-markdown";
import { externalHost, SANITIZING_REHYPE_PLUGINS, safeUrl } from "@/lib/markdown/sanitize";

export { externalHost, safeUrl };

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
      <Markdown skipHtml urlTransform={safeUrl} rehypePlugins={SANITIZING_REHYPE_PLUGINS} components={{ a: Link }}>
        {children}
      </Markdown>
    </div>
  );
}
