"use client";
/**
 * "Answer and remember" (docs/policies.md "Standing rules"): answer this ask and let a standing rule
 * answer the next ones like it, for a while — with the scope in words before saving. The scope
 * always holds this agent, this mode and these options; project, tags and a title pattern narrow it.
 */
import { useState } from "react";
import { ActionForm } from "@/components/ActionForm";
import type { ItemView } from "@/lib/inbox/view";
import { describeScope } from "@/lib/standing-rules/scope";
import { rememberAction } from "../actions";

const DURATION_LABEL: Record<string, string> = {
  "30m": "30 minutes",
  "2h": "2 hours",
  "8h": "8 hours",
  until_revoked: "until revoked",
};

export function RememberForm({ item }: { item: ItemView }) {
  const r = item.remember;
  const [value, setValue] = useState(r?.options[0]?.value ?? "");
  const [project, setProject] = useState(false);
  const [tags, setTags] = useState<string[]>([]);
  const [pattern, setPattern] = useState("");
  const [shadow, setShadow] = useState(false);
  if (!r) return null;
  const words = describeScope({
    agentId: r.agentId,
    mode: r.mode,
    options: r.options.map((o) => o.value),
    project: project ? r.project : null,
    tags,
    titlePattern: pattern.trim() || null,
    value,
  });
  return (
    <section className="panel remember" data-testid="remember-panel">
      <h2>Answer and remember</h2>
      <p className="hint">
        Answers this ask now and lets a standing rule give the same answer to the next asks like it — signed as the
        rule, never as you, with your name on it. It stops when it expires, when you revoke it under Settings → Standing
        rules, or after too many answers in an hour.
      </p>
      <ActionForm action={rememberAction} hidden={{ message: item.id }} submit="Answer and remember" testId="remember">
        <label>
          Answer{" "}
          <select name="value" value={value} onChange={(e) => setValue(e.target.value)} data-testid="remember-value">
            {r.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>{" "}
        <label>
          for{" "}
          <select name="duration" defaultValue={r.durations[0]} data-testid="remember-duration">
            {r.durations.map((d) => (
              <option key={d} value={d}>
                {DURATION_LABEL[d] ?? d}
              </option>
            ))}
          </select>
        </label>
        {r.project && (
          <label>
            <input
              type="checkbox"
              name="project"
              checked={project}
              onChange={(e) => setProject(e.target.checked)}
              data-testid="remember-project"
            />{" "}
            only project {r.project}
          </label>
        )}
        {r.tags.map((t) => (
          <label key={t}>
            <input
              type="checkbox"
              name="tag"
              value={t}
              checked={tags.includes(t)}
              onChange={(e) => setTags(e.target.checked ? [...tags, t] : tags.filter((x) => x !== t))}
              data-testid={`remember-tag-${t}`}
            />{" "}
            only tagged {t}
          </label>
        ))}
        <label>
          Title like{" "}
          <input
            name="title_pattern"
            value={pattern}
            placeholder={r.suggestedPattern}
            onChange={(e) => setPattern(e.target.value)}
            data-testid="remember-pattern"
          />{" "}
          <span className="hint">(* any characters; blank: any title)</span>
        </label>
        <label>
          <input
            type="checkbox"
            name="shadow"
            checked={shadow}
            onChange={(e) => setShadow(e.target.checked)}
            data-testid="remember-shadow"
          />{" "}
          shadow mode: only count what it would have answered
        </label>
        <p className="readonly" data-testid="remember-scope">
          {shadow ? "Would answer (shadow): " : "Will answer: "}
          {words}
        </p>
      </ActionForm>
    </section>
  );
}
