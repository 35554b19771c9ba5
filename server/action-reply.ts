/**
 * The body of a Server Action called from script, checked before Next decodes it. React
 * encodes the arguments as one JSON text (`text/plain`) or, when they hold files, maps, promises
 * and the like, as multipart fields `0`, `1`, … whose JSON refers to one another by `$`-prefixed
 * strings. React's decoder waits for a referenced field that is not there, and Next answers a
 * body that ends first — or any body that is not JSON — with a 500. So: the root (the whole text,
 * or field `0`) must be JSON, and every reference in it, followed through the fields it names,
 * must name a field that exists. A string reference's second character says what it is (the
 * decoder in react-server-dom-webpack): the kinds below carry no field; the rest name one by hex
 * id, must come before the part that names it, and must have the shape its kind wants (a Map's
 * pairs, a typed array's bytes); server references and streams are refused, as no action of the
 * Hub takes one. The root must be a list (the arguments). Null when the body can be handed to
 * Next, else why not.
 */
import { MAX_JSON_DEPTH } from "../lib/http/json-limits";

/** `$$` escape, `$H`, `$T` temporary reference, `$I`nfinity, `$-0`, `$N`aN, `$u`ndefined, `$D`ate, `$K` form prefix. */
const NO_FIELD = new Set(["$", "H", "T", "I", "-", "N", "u", "D", "K"]);
/** Typed arrays and blobs: their field is a file (bytes), not JSON. */
const BINARY = new Set(["A", "O", "o", "U", "S", "s", "L", "l", "G", "g", "M", "m", "V", "B"]);
/** Outlined models whose part is JSON: a plain value (hex id), a promise, a Map, a Set, an iterator. */
const JSON_PART = new Set(["@", "Q", "W", "i"]);
/** Kinds no action of the Hub takes: `$h` a server reference, `$R`/`$r` streams, `$X`/`$x` async iterables. */
const REFUSED = new Set(["h", "R", "r", "X", "x"]);
/**
 * Every kind React's reply decoder knows, as this checker classifies it (`n` is the BigInt). A
 * test holds it to the decoder Next ships (test/framework-couplings.test.ts): a React that learns
 * a kind fails it until the kind is classified here.
 */
export const CLASSIFIED_KINDS: ReadonlySet<string> = new Set([...NO_FIELD, ...BINARY, ...JSON_PART, ...REFUSED, "n"]);
/** React refuses a BigInt of more than 300 digits (and `BigInt()` anything but digits). */
const BIGINT = /^\$n-?\d{1,300}$/;

type Fields = Map<string, FormDataEntryValue> | null;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Whether `path` (object keys, list indexes) leads somewhere in a parsed JSON value. */
function hasPath(value: unknown, path: readonly string[]): boolean {
  let at: unknown = value;
  for (const key of path) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return true;
}

export function actionReplyProblem(root: string, fields: Fields): string | null {
  const parsed = parseJson(root);
  if (!parsed.ok) return "the Server Action body is not JSON";
  // The root is the argument list: Next spreads it into the call (`apply`).
  if (!Array.isArray(parsed.value)) return "the Server Action arguments are not a list";
  // React's client writes a part before any part that refers to it; its decoder reads the body as it
  // streams, and a reference to a part that comes later is "Invalid forward reference".
  const order = new Map([...(fields?.keys() ?? [])].map((name, i) => [name, i]));
  const seen = new Set<string>();
  const stack: Array<{ v: unknown; at: number; depth: number }> = [
    { v: parsed.value, at: order.get("0") ?? 0, depth: 0 },
  ];
  while (stack.length) {
    const { v, at, depth } = stack.pop() as { v: unknown; at: number; depth: number };
    // React's decoder recurses: nesting deep enough overflows its stack (the same cap as /v1 bodies).
    if (depth > MAX_JSON_DEPTH) return `the Server Action arguments nest deeper than ${MAX_JSON_DEPTH} levels`;
    if (Array.isArray(v)) for (const item of v) stack.push({ v: item, at, depth: depth + 1 });
    else if (v !== null && typeof v === "object")
      for (const item of Object.values(v)) stack.push({ v: item, at, depth: depth + 1 });
    else if (typeof v === "string" && v.startsWith("$")) {
      const kind = v[1] ?? "";
      if (kind === "n") {
        if (!BIGINT.test(v)) return "a malformed BigInt in the Server Action body";
        continue;
      }
      if (NO_FIELD.has(kind)) continue;
      // Server references and streams are not arguments any action of the Hub takes.
      const plain = /^[0-9a-f]$/i.test(kind);
      if (!plain && !BINARY.has(kind) && !JSON_PART.has(kind)) return "a Server Action argument of a kind not accepted";
      // A plain reference may carry a path (`$0:0:routing:eligible`): React writes an object met twice
      // once and refers back to where it first stands — in an earlier part, or earlier in this one.
      const [id = "", ...path] = (plain ? v.slice(1) : v.slice(2)).split(":");
      if (!/^[0-9a-f]{1,8}$/i.test(id) || (path.length > 0 && !plain) || path.length > MAX_JSON_DEPTH)
        return "a malformed reference in the Server Action body";
      const name = String(Number.parseInt(id, 16));
      // A text body is the root part alone: part 0.
      const field = fields === null ? (name === "0" ? root : undefined) : fields.get(name);
      const where = fields === null ? (name === "0" ? 0 : undefined) : order.get(name);
      if (field === undefined || where === undefined) return "the Server Action body refers to a part it does not have";
      if (where > at || (where === at && path.length === 0))
        return "the Server Action body refers to a part that comes after it";
      if (path.length > 0) {
        const target = typeof field === "string" ? parseJson(field) : { ok: false as const };
        if (!target.ok || !hasPath(target.value, path))
          return "the Server Action body refers to a value it does not have";
        // Within this part the value is checked where it first stands; an earlier part, once, below.
        if (where === at) continue;
      }
      if (BINARY.has(kind)) {
        if (typeof field === "string") return "a Server Action part that should be a file is text";
        continue;
      }
      if (typeof field !== "string") return "a Server Action part that should be JSON is a file";
      const part = parseJson(field);
      if (!part.ok) return "a Server Action part is not JSON";
      // A Map is built from [key, value] pairs, a Set and an iterator from a list.
      if (kind === "Q" && !(Array.isArray(part.value) && part.value.every((e) => Array.isArray(e) && e.length === 2)))
        return "a Server Action Map part is not a list of pairs";
      if ((kind === "W" || kind === "i") && !Array.isArray(part.value)) return "a Server Action Set part is not a list";
      if (seen.has(name)) continue;
      seen.add(name);
      stack.push({ v: part.value, at: where, depth: depth + 1 });
    }
  }
  return null;
}
