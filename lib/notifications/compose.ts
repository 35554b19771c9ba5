/**
 * The email about one ask/task (docs/notifications.md "What a mail contains"): subject
 * `[<priority>] <title>` (prefixed `Reminder: ` / `Escalation: ` for those kinds, with an intro line
 * saying since when the item waits), a plain-text body, and an HTML body in which the agent's
 * Markdown (`body`, a task's instructions) goes through the inbox's own sanitizing pipeline
 * (lib/markdown/mail-html.ts: no raw HTML, script or remote image, and the agent's links shown as
 * text). A `select`/`confirm` ask mailed to a person who may answer it carries one answer link per
 * option (lib/notifications/answer-tokens.ts). An ask the account's approval policy routed says so,
 * naming the rules and the people asked (docs/policies.md); under `email_answers: false` it carries
 * no answer link and says it is answered in the Hub. A `sensitive` item (§9.6) is mailed with its
 * title and the item's link only.
 */
import { processWide } from "../process-wide";
import { markdownToMailHtml } from "../markdown/mail-html";
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import type { Message } from "@ma2h/protocol/message";
import type { Routing } from "../policies/evaluate";
import { quorumNeeds } from "../approvals/tally";
import type { AnswerLink } from "./answer-tokens";
import { KIND_ASSIGNED, KIND_ESCALATION, KIND_NEW, KIND_REMINDER, KIND_RULE_STOPPED, type Kind } from "./kinds";
import { escapeHtml, itemUrl, oneLine } from "./text";

export interface MailItem {
  id: string;
  title: string;
  priority: string;
  sensitive: boolean;
  /** When the item arrived: a reminder or escalation says it waits since then. */
  createdAt?: Date;
}

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

export interface ComposeOptions {
  /** Which notification this is (default `new`). */
  kind?: Kind;
  /** One per option, minted for this mail's person; empty or absent when they get none. */
  answerLinks?: AnswerLink[];
  /** The approval routing recorded on the item (null or absent: the default policy). */
  routing?: Routing | null;
}

/** How many of the people asked a mail names before "and N more". */
const NAMED_PEOPLE = 10;

/** The line saying who the account's approval policy asks, and whether mail may answer. */
export function routingLine(routing: Routing): string {
  const shown = routing.eligible.slice(0, NAMED_PEOPLE).join(", ");
  const more = routing.eligible.length > NAMED_PEOPLE ? ` and ${routing.eligible.length - NAMED_PEOPLE} more` : "";
  const rules = `rule${routing.rules.length > 1 ? "s" : ""} ${routing.rules.join(", ")}`;
  const inHub = routing.email_answers ? "" : " It is answered in the Hub, not from mail.";
  const needs = routing.quorum ? quorumNeeds(routing.quorum) : null;
  return `The account's approval policy (${rules}) asks: ${shown}${more}.${needs ? ` ${needs}` : ""}${inHub}`;
}

/** A part of the mail: plain lines (escaped in HTML), agent Markdown (sanitized in HTML), or links. */
type Section =
  | { heading?: string; lines: string[] }
  | { heading?: string; markdown: string }
  | { heading: string; links: Array<AnswerLink & { description?: string }> };

const SUBJECT_PREFIX: Record<Kind, string> = {
  [KIND_NEW]: "",
  [KIND_REMINDER]: "Reminder: ",
  [KIND_ESCALATION]: "Escalation: ",
  [KIND_ASSIGNED]: "Handed to you: ",
  [KIND_RULE_STOPPED]: "Standing rule stopped: ",
};

function when(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function intro(kind: Kind, item: MailItem): Section[] {
  if (kind === KIND_NEW) return [];
  const since = item.createdAt ? ` since ${when(item.createdAt)}` : "";
  if (kind === KIND_ASSIGNED) return [{ lines: [`This item was handed to you; it is waiting${since}.`] }];
  if (kind === KIND_RULE_STOPPED)
    return [
      {
        lines: [
          "Your standing rule answered as many asks this hour as the account allows, and stopped itself. This one waits for a person; make a new rule from an ask if you still want one.",
        ],
      },
    ];
  return kind === KIND_REMINDER
    ? [{ lines: [`Reminder: this item is still waiting on you${since}.`] }]
    : [{ lines: [`Escalation: this item is still waiting${since}, with no answer from the people asked.`] }];
}

function sections(
  item: MailItem,
  envelope: Message,
  links: AnswerLink[],
  kind: Kind,
  routing: Routing | null,
): Section[] {
  const agent = envelope.agent.id;
  // An escalation goes to owners/admins, who may not be the ones asked.
  const you = kind === KIND_ESCALATION ? "" : " you";
  if (item.sensitive) {
    return [
      { lines: [`${agent} is waiting on${you || " someone"}: "${item.title}".`] },
      { lines: ["This item is marked sensitive, so its content is shown only in the Hub."] },
    ];
  }
  const out: Section[] = [];
  if (envelope.type === "ask") {
    out.push({ lines: [`${agent} asks${you} (${envelope.request.mode}): "${item.title}".`] });
  } else if (envelope.type === "task") {
    out.push({ lines: [`${agent} has a task for${you || " someone"}: "${item.title}".`] });
  }
  // Who is asked: an escalated owner or admin may not be among them, and reads whom to chase.
  if (routing !== null) out.push({ lines: [routingLine(routing)] });
  if (envelope.body) out.push({ markdown: envelope.body });
  if (envelope.type === "ask" && envelope.request.mode !== "input") {
    const options = effectiveOptions(envelope.request);
    const linked = options.flatMap((o) => {
      const link = links.find((l) => l.value === o.value);
      return link ? [{ ...link, description: o.description }] : [];
    });
    if (linked.length > 0) {
      out.push({
        heading: "Answer from this mail (each link opens a page in the Hub where you confirm)",
        links: linked,
      });
    } else if (options.length > 0) {
      out.push({
        heading: "Options (answer in the Hub)",
        lines: options.map((o) => `- ${o.label}${o.description ? ` — ${o.description}` : ""}`),
      });
    }
  }
  if (envelope.type === "ask" && envelope.request.mode === "input") {
    out.push({ lines: ["This ask wants a filled-in answer: open it in the Hub."] });
  }
  if (envelope.type === "task") {
    out.push({ heading: "Instructions", markdown: envelope.action.instructions });
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

function sectionText(s: Section): string {
  const head = s.heading ? [`${s.heading}:`] : [];
  if ("links" in s)
    return [
      ...head,
      ...s.links.map((l) => `- ${l.label}: ${l.url}${l.description ? `\n  ${l.description}` : ""}`),
    ].join("\n");
  if ("markdown" in s) return [...head, s.markdown].join("\n");
  return [...head, ...s.lines].join("\n");
}

/**
 * The last few Markdown sources rendered, by source text: an item's mails to its people (and its
 * reminder and escalation) render the same body, so the pipeline runs once per item, not per mail.
 * Pure in its input, so a hit is exactly what a render would give.
 */
const renderedBodies = () => processWide("ma2h.mail-html-cache", () => new Map<string, string>());
const RENDERED_MAX = 64;
/** Longer sources are rendered each time: the cache stays small whatever agents send. */
const RENDERED_SOURCE_MAX = 16_384;

function mailHtmlOf(markdown: string): string {
  if (markdown.length > RENDERED_SOURCE_MAX) return markdownToMailHtml(markdown);
  const rendered = renderedBodies();
  let html = rendered.get(markdown);
  if (html === undefined) {
    html = markdownToMailHtml(markdown);
    if (rendered.size >= RENDERED_MAX) rendered.delete(rendered.keys().next().value as string);
    rendered.set(markdown, html);
  }
  return html;
}

function sectionHtml(s: Section): string {
  const head = s.heading ? `<p><strong>${escapeHtml(s.heading)}</strong></p>` : "";
  if ("links" in s) {
    const items = s.links.map(
      (l) =>
        `<li><a href="${escapeHtml(l.url)}">${escapeHtml(l.label)}</a>` +
        `${l.description ? ` — ${escapeHtml(l.description)}` : ""}</li>`,
    );
    return `${head}<ul>${items.join("")}</ul>`;
  }
  if ("markdown" in s) return `${head}<div>${mailHtmlOf(s.markdown)}</div>`;
  return `${head}<p>${s.lines.map(escapeHtml).join("<br>")}</p>`;
}

export function composeMail(
  item: MailItem,
  envelope: Message,
  publicUrl: string,
  options: ComposeOptions = {},
): ComposedMail {
  const kind = options.kind ?? KIND_NEW;
  const link = itemUrl(publicUrl, item.id);
  const links = options.routing?.email_answers === false ? [] : (options.answerLinks ?? []);
  const body = [...intro(kind, item), ...sections(item, envelope, links, kind, options.routing ?? null)];
  const text = [...body.map(sectionText), `Open it in the Hub: ${link}`].join("\n\n");
  const html = [
    "<!doctype html><html><body>",
    ...body.map(sectionHtml),
    `<p><a href="${escapeHtml(link)}">Open it in the Hub</a></p>`,
    "</body></html>",
  ].join("\n");
  return { subject: oneLine(`${SUBJECT_PREFIX[kind]}[${item.priority}] ${item.title}`), text: `${text}\n`, html };
}
