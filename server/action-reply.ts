/**
 * The body of a Server Action called from script, checked before Next decodes it (#19). React
 * encodes the arguments as one JSON text (`text/plain`) or, when they hold files, maps, promises
 * and the like, as multipart fields `0`, `1`, … whose JSON refers to one another by `$`-prefixed
 * strings. React's decoder waits for a referenced field that is not there, and Next answers a
 * body that ends first — or any body that is not JSON — with a 500. So: the root (the whole text,
 * or field `0`) must be JSON, and every reference in it, followed through the fields it names,
 * must name a field that exists. A string reference's second character says what it is (the
 * decoder in react-server-dom-webpack): the kinds below carry no field; the rest name one by hex
 * id. Null when the body can be handed to Next, else why not.
 */

/** `$$` escape, `$H`, `$T` temporary reference, `$I`nfinity, `$-0`, `$N`aN, `$u`ndefined, `$D`ate, `$K` form prefix. */
const NO_FIELD = new Set(["$", "H", "T", "I", "-", "N", "u", "D", "K"]);
/** Typed arrays and blobs: their field is bytes, not JSON. */
const BINARY = new Set(["A", "O", "o", "U", "S", "s", "L", "l", "G", "g", "M", "m", "V", "B"]);
const MAX_BIGINT_DIGITS = 300;

type Fields = Map<string, FormDataEntryValue> | null;

export function actionReplyProblem(root: string, fields: Fields): string | null {
  const seen = new Set<string>();
  const pending: string[] = [root];
  while (pending.length) {
    let value: unknown;
    try {
      value = JSON.parse(pending.pop() as string);
    } catch {
      return "the Server Action body is not JSON";
    }
    const stack: unknown[] = [value];
    while (stack.length) {
      const v = stack.pop();
      if (Array.isArray(v)) stack.push(...v);
      else if (v !== null && typeof v === "object") stack.push(...Object.values(v));
      else if (typeof v === "string" && v.startsWith("$")) {
        const kind = v[1] ?? "";
        if (kind === "n") {
          if (!new RegExp(`^\\$n-?\\d{1,${MAX_BIGINT_DIGITS}}$`).test(v))
            return "a malformed BigInt in the Server Action body";
          continue;
        }
        if (NO_FIELD.has(kind)) continue;
        const id = /^[0-9a-f]$/i.test(kind) ? v.slice(1) : v.slice(2);
        if (!/^[0-9a-f]{1,8}$/i.test(id)) return "a malformed reference in the Server Action body";
        const name = String(Number.parseInt(id, 16));
        const field = fields?.get(name);
        if (field === undefined) return "the Server Action body refers to a part it does not have";
        if (BINARY.has(kind) || seen.has(name)) continue;
        if (typeof field !== "string") return "a Server Action part that should be JSON is a file";
        seen.add(name);
        pending.push(field);
      }
    }
  }
  return null;
}
