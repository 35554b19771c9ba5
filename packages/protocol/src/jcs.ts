import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** RFC 8785 JSON Canonicalization Scheme (§9.2). */
export function jcs(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new TypeError("value cannot be canonicalized");
  return out;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
