/**
 * The email about one new ask/task (#16, docs/notifications.md): subject `[<priority>] <title>`, a
 * plain-text body and an HTML body built from the same escaped text — never the agent's Markdown or
 * HTML rendered as markup, so a mail carries no script, no remote image and no link but the Hub's.
 * A `sensitive` item (§9.6) is mailed with its title and link only.
 */
import { effectiveOptions } from "../protocol/ask-contract";
import type { Message } from "../protocol/message";
import { KIND_ESCALATION, KIND_NEW, KIND_REMINDER, type Kind } from "./kinds";
import { escapeHtml, oneLine } from "./text";

export interface MailItem {
  id: string;
  title: string;
  priority: string;
  sensitive: boolean;
}

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

/** The item's page in the Hub's inbox (the same `review_url` the submit ack returns). */
export function itemUrl(publicUrl: string, id: string): string {
  return `${publicUrl}/inbox/${id}`;
}

interface Section {
  heading?: string;
  lines: string[];
}

function sections(item: MailItem, envelope: Message): Section[] {
  const agent = envelope.agent.id;
  if (item.sensitive) {
    return [
      { lines: [`${agent} is waiting on you: "${item.title}".`] },
      { lines: ["This item is marked sensitive, so its content is shown only in the Hub."] },
    ];
  }
  const out: Section[] = [];
  if (envelope.type === "ask") {
    out.push({ lines: [`${agent} asks you (${envelope.request.mode}): "${item.title}".`] });
  } else if (envelope.type === "task") {
    out.push({ lines: [`${agent} has a task for you: "${item.title}".`] });
  }
  if (envelope.body) out.push({ lines: envelope.body.split(/\r?\n/) });
  if (envelope.type === "ask" && envelope.request.mode !== "input") {
    const options = effectiveOptions(envelope.request).map(
      (o) => `- ${o.label}${o.description ? ` — ${o.description}` : ""}`,
    );
    if (options.length > 0) out.push({ heading: "Options (answer in the Hub)", lines: options });
  }
  if (envelope.type === "ask" && envelope.request.mode === "input") {
    out.push({ lines: ["This ask wants a filled-in answer: open it in the Hub."] });
  }
  if (envelope.type === "task") {
    out.push({ heading: "Instructions", lines: envelope.action.instructions.split(/\r?\n/) });
    if (envelope.action.checklist?.length)
      out.push({
        heading: "Checklist",
        lines: envelope.action.checklist.map((c) => `- [${c.done ? "x" : " "}] ${c.text}`),
      });
  }
  const parts = envelope.context?.length ?? 0;
  if (parts > 0)
    out.push({ lines: [`The item carries ${parts} context part${parts === 1 ? "" : "s"}: see them in the Hub.`] });
  return out;
}

/** A reminder's or an escalation's subject says so before the usual one (reminders.ts). */
const SUBJECT_PREFIX: Record<Kind, string> = {
  [KIND_NEW]: "",
  [KIND_REMINDER]: "Reminder: ",
  [KIND_ESCALATION]: "Escalation: ",
};

export function composeMail(item: MailItem, envelope: Message, publicUrl: string, kind: Kind = KIND_NEW): ComposedMail {
  const link = itemUrl(publicUrl, item.id);
  const body = sections(item, envelope);
  const text = [
    ...body.map((s) => [...(s.heading ? [`${s.heading}:`] : []), ...s.lines].join("\n")),
    `Open it in the Hub: ${link}`,
  ].join("\n\n");
  const html = [
    "<!doctype html><html><body>",
    ...body.map(
      (s) =>
        `${s.heading ? `<p><strong>${escapeHtml(s.heading)}</strong></p>` : ""}` +
        `<pre style="white-space:pre-wrap;font-family:inherit">${escapeHtml(s.lines.join("\n"))}</pre>`,
    ),
    `<p><a href="${escapeHtml(link)}">Open it in the Hub</a></p>`,
    "</body></html>",
  ].join("\n");
  const prefix = SUBJECT_PREFIX[kind] ?? "";
  return { subject: oneLine(`${prefix}[${item.priority}] ${item.title}`), text: `${text}\n`, html };
}
