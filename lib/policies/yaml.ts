/**
 * Policy as code (docs/policies.md): a policy file in YAML, parsed and checked whole, every problem
 * reported with its line and column — the YAML's own syntax errors, the schema's (lib/policies/model.ts:
 * zod issue paths mapped to the document's nodes), and the apply's (people and groups that do not
 * exist, lib/policies/store.ts). And the export: the account's policy as the file that reproduces it.
 * Pure: no I/O.
 */
import { isMap, isPair, isScalar, LineCounter, type Node, parseDocument, stringify } from "yaml";
import type { z } from "zod";
import { type PolicyFile, PolicyFileSchema } from "./model";
import type { PolicyProblem } from "./store";

/** The most bytes a policy file may have. */
export const MAX_POLICY_BYTES = 256 * 1024;

export interface LocatedProblem extends PolicyProblem {
  /** 1-based; 0 when the problem has no place in the file (it is empty, or too large). */
  line: number;
  col: number;
}

export type ParsedPolicy = { ok: true; file: PolicyFile } | { ok: false; problems: LocatedProblem[] };

type Doc = ReturnType<typeof parseDocument>;

/** Where a path of the document starts: the deepest node on it that exists (a missing key: its map). */
function offsetOf(doc: Doc, path: ReadonlyArray<string | number>, key?: string): number {
  let node: unknown = doc.contents;
  let at = (doc.contents as Node | null)?.range?.[0] ?? 0;
  for (const step of path) {
    if (!node || typeof node !== "object" || !("get" in node)) break;
    const next = (node as { get(k: unknown, keep: boolean): unknown }).get(step, true);
    if (next === undefined) break;
    node = next;
    at = (next as Node).range?.[0] ?? at;
  }
  // An unknown key: point at the key itself.
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
    if (pair && isScalar(pair.key)) at = pair.key.range?.[0] ?? at;
  }
  return at;
}

function issueProblems(doc: Doc, issues: z.core.$ZodIssue[], lines: LineCounter): LocatedProblem[] {
  const out: LocatedProblem[] = [];
  for (const issue of issues) {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)) as Array<string | number>;
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
    for (const key of keys) {
      const { line, col } = lines.linePos(offsetOf(doc, path, key));
      const message = key !== undefined ? `unknown key ${JSON.stringify(key)}` : issue.message;
      out.push({ path: key !== undefined ? [...path, key] : path, message, line, col });
    }
  }
  return out.sort((a, b) => a.line - b.line || a.col - b.col);
}

/** Parses and checks a policy file; every problem at once, each with its line and column. */
export function parsePolicyYaml(text: string): ParsedPolicy {
  if (Buffer.byteLength(text, "utf8") > MAX_POLICY_BYTES)
    return {
      ok: false,
      problems: [{ path: [], message: `a policy file is at most ${MAX_POLICY_BYTES} bytes`, line: 0, col: 0 }],
    };
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0)
    return {
      ok: false,
      problems: doc.errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        return { path: [], message: e.message.split("\n")[0] as string, line, col };
      }),
    };
  const result = PolicyFileSchema.safeParse(doc.toJS());
  if (!result.success) return { ok: false, problems: issueProblems(doc, result.error.issues, lines) };
  return { ok: true, file: result.data };
}

/** The apply's problems (paths into the file) placed on the file's lines. */
export function locateProblems(text: string, problems: readonly PolicyProblem[]): LocatedProblem[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  return problems.map((p) => ({ ...p, ...lines.linePos(offsetOf(doc, p.path)) }));
}

/** `file.yaml:3:7: message` lines, as the CLI prints them and the admin page shows them. */
export function formatProblems(problems: readonly LocatedProblem[], name = "policy"): string {
  return problems.map((p) => `${name}:${p.line}:${p.col}: ${p.message}`).join("\n");
}

/** The policy file, as YAML, with a header saying what it is. */
export function policyToYaml(file: PolicyFile, header: string): string {
  const body = stringify(file, { lineWidth: 0 });
  return `${header
    .split("\n")
    .map((l) => `# ${l}`.trimEnd())
    .join("\n")}\n${body}`;
}
