import { MarkdownView } from "@/components/Markdown";
import type { ContextPartView } from "@/lib/inbox/view";

/**
 * §4.2 context parts: text through the one Markdown renderer, data as formatted JSON, files as a
 * link that names its host — the Hub never fetches them (§9.6), and only http(s) becomes a link.
 */
export function ContextParts({ parts }: { parts: ContextPartView[] }) {
  return (
    <section className="context" data-testid="item-context">
      <h2>Context</h2>
      <ol className="parts">
        {parts.map((p, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts are the stored envelope's, in its order, never reordered
          <li key={i} className={`part part-${p.kind}`}>
            {p.kind === "text" && <MarkdownView>{p.text}</MarkdownView>}
            {p.kind === "data" && <pre className="json">{p.json}</pre>}
            {p.kind === "file" && <FilePart part={p} />}
          </li>
        ))}
      </ol>
    </section>
  );
}

function FilePart({ part }: { part: Extract<ContextPartView, { kind: "file" }> }) {
  const name = part.name ?? part.uri;
  return (
    <p className="file">
      <span className="file-label">file</span>{" "}
      {part.href ? (
        <a
          href={part.href}
          target="_blank"
          rel="noopener noreferrer nofollow"
          data-external="true"
          className="md-external"
        >
          {name}
          <span className="md-host"> ↗ {part.host}</span>
        </a>
      ) : (
        <span className="md-dead-link" title="not an http(s) link">
          {name} <code>{part.uri}</code>
        </span>
      )}
      {part.mimeType && <span className="mime"> {part.mimeType}</span>}
    </p>
  );
}
