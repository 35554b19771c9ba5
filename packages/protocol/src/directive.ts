/**
 * §13.1 directives. Two shapes: the authoring request an operator sends to `POST /v1/directives`
 * (only the human-authored fields plus `to`; `id`, `from`, `created_at` are the Hub's), and the
 * delivered directive an agent drains (schema/v0.6/inbound-message.schema.json, `directive` branch).
 * Pure: no I/O.
 */
import { z } from "zod";
import { ACK_NOTE_MAX_CHARS } from "./ack";
import { partSchema } from "./message";
import { codePointString, dateTimeString, patternString } from "./wire";

/**
 * §4 address grammar. Session addressing (`#sess_…`) parses, but this Hub offers no sessions yet, so
 * such a destination is an unknown session: `422 unknown_destination` (§13.2), never a 400.
 */
export const DIRECTIVE_TO_PATTERN = /^agent:[^#]+(#sess_.+)?$/u;

/**
 * The authoring request. Unknown fields are ignored (§10); an attempt to set a Hub-owned or a
 * forbidden field (`id`, `from`, `created_at`, `request`, `action`, `state`) is simply not read —
 * the delivered directive carries only what this schema keeps.
 */
/** §13.1: the optional human-authored fields, the same in the authoring request and the delivered directive. */
export const directiveOptionalFields = {
  body: z.string().optional(),
  priority: z.enum(["low", "normal", "high", "urgent"]).optional(),
  tags: z.array(z.string()).optional(),
  context: z.array(partSchema).optional(),
  expires_at: dateTimeString().optional(),
  sensitive: z.boolean().optional(),
};

export const directiveRequestSchema = z.object({
  to: patternString(DIRECTIVE_TO_PATTERN),
  title: codePointString(1, 200).refine((s) => !/[\r\n]/u.test(s), { error: "must be one line" }),
  ...directiveOptionalFields,
});

export type DirectiveRequest = z.output<typeof directiveRequestSchema>;

/** §9.7: the human-authored content the signature binds — exactly the present fields of these five. */
export interface DirectiveContent {
  title: string;
  body?: string;
  priority?: string;
  tags?: string[];
  context?: unknown[];
}

export function directiveContent(source: DirectiveContent): DirectiveContent {
  const out: DirectiveContent = { title: source.title };
  if (source.body !== undefined) out.body = source.body;
  if (source.priority !== undefined) out.priority = source.priority;
  if (source.tags !== undefined) out.tags = source.tags;
  if (source.context !== undefined) out.context = source.context;
  return out;
}

/** The delivered directive (§13.1). */
export interface Directive extends DirectiveContent {
  ma2h_version: string;
  type: "directive";
  id: string;
  from: string;
  to: string;
  created_at: string;
  expires_at?: string;
  sensitive?: boolean;
}

/** `POST /v1/inbox/ack` body (§8.7, §14.3). */
export const mailboxAckSchema = z.object({
  ids: z.array(z.string().min(1)).min(1).max(1000),
  note: codePointString(1, ACK_NOTE_MAX_CHARS).optional(),
});
