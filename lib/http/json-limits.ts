/**
 * What a request body may hold beyond being JSON (found by the fuzzer). Valid JSON can still
 * carry what the Hub cannot keep or sign: a NUL character (PostgreSQL text and jsonb refuse it),
 * a lone UTF-16 surrogate (`"\ud800"`: not a Unicode string, so not UTF-8, and RFC 8785 cannot
 * canonicalize it), a number that overflows to ±Infinity (`1e400`), or nesting so deep that the
 * validators' recursion would run out of stack. Each is a `400 validation_error` (§8.5) naming the
 * place, before any domain code runs. Iterative, so the check itself cannot overflow.
 */
import { HubError } from "@ma2h/protocol/errors";

/** Deeper than any protocol object (the envelope's deepest defined member is a few levels down). */
export const MAX_JSON_DEPTH = 64;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function stringProblem(s: string): string | null {
  if (s.includes("\u0000")) return "contains a NUL character";
  if (LONE_SURROGATE.test(s)) return "contains a lone UTF-16 surrogate";
  return null;
}

/** Throws `400 validation_error` when a parsed body holds something the Hub cannot store or sign. */
export function assertStorableJson(value: unknown): void {
  const stack: Array<{ v: unknown; depth: number; at: string }> = [{ v: value, depth: 0, at: "$" }];
  while (stack.length) {
    const { v, depth, at } = stack.pop() as { v: unknown; depth: number; at: string };
    if (depth > MAX_JSON_DEPTH)
      throw new HubError("validation_error", `request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (typeof v === "string") {
      const problem = stringProblem(v);
      if (problem) throw new HubError("validation_error", `the string at ${at} ${problem}`);
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new HubError("validation_error", `the number at ${at} is out of range`);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], depth: depth + 1, at: `${at}[${i}]` });
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        const problem = stringProblem(k);
        if (problem) throw new HubError("validation_error", `a member name under ${at} ${problem}`);
        stack.push({ v: item, depth: depth + 1, at: `${at}.${k.slice(0, 40)}` });
      }
    }
  }
}
