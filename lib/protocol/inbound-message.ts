/**
 * The delivered mailbox entry (§8.7, §13.1), a zod mirror of schema/v0.6/inbound-message.schema.json
 * — its `directive` branch only. The schema is a `oneOf` of four kinds; the other three (`message`,
 * `response`, `receipt`) are v0.5 inter-agent entries delivered only to session-presenting drains,
 * which this Hub does not offer yet, so they are not mirrored: this schema rejects them (their
 * vectors stay deferred in vectors.test.ts). The kinds are disjoint on `type` for every directive-
 * typed document (`message` entries are notify/ask/task, a receipt is `receipt`, a Response entry
 * needs the §6 fields a directive never has), so on those the one-branch mirror and the union agree.
 * Pure: no I/O.
 */
import { z } from "zod";
import { directiveOptionalFields } from "./directive";
import { ADDRESS_PATTERN, codePointString, dateTimeString, forbidden, isV05, patternString, V04_PATTERN } from "./wire";

/** §8.7.1: the `dir_` ack-key namespace is normative for ≥ 0.5-minted directives. */
const DIRECTIVE_ID_V05 = /^dir_.+$/u;

export const inboundDirectiveSchema = z
  .looseObject({
    ma2h_version: patternString(V04_PATTERN), // §13.1: directives are v0.4+, the minor must be ≥ 4
    type: z.literal("directive"),
    id: z.string().min(1),
    from: patternString(/^(human|system):.+$/u), // Hub-attested author, never an agent (§9.1)
    to: patternString(/^agent:.+$/u),
    created_at: dateTimeString(),
    title: codePointString(1, 200),
    ...directiveOptionalFields,
    // §13.1: no inbound ask/task, and no agent-owned resume blob.
    request: forbidden("on a directive (§13.1)"),
    action: forbidden("on a directive (§13.1)"),
    state: forbidden("on a directive (§13.1)"),
  })
  .superRefine((d, ctx) => {
    // ≥ 0.5 directives follow the §4 first-`#` grammar and the `dir_` namespace; a 0.4-era
    // directive queued before an upgrade keeps its legacy `to` and id and stays drainable.
    if (!isV05(d.ma2h_version)) return;
    if (!ADDRESS_PATTERN.test(d.to))
      ctx.addIssue({
        code: "custom",
        path: ["to"],
        message: `must match ${ADDRESS_PATTERN.source} on ≥ 0.5 (§4, §13.2)`,
      });
    if (!DIRECTIVE_ID_V05.test(d.id))
      ctx.addIssue({ code: "custom", path: ["id"], message: "must match ^dir_ on ≥ 0.5 (§8.7.1)" });
  });

export type InboundDirective = z.infer<typeof inboundDirectiveSchema>;
