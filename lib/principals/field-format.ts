/** The format check of an administrative name or id (slugs, handles, origins): `422 invalid_field`. */
import { HubError } from "@ma2h/protocol/errors";

/** Checks a value against a pattern, throwing `invalid_field` naming the field and the rule. */
export function requireMatch(field: string, value: string, pattern: RegExp, rule: string): string {
  if (!pattern.test(value))
    throw new HubError("invalid_field", `${field} ${JSON.stringify(value)} is invalid: ${rule}`);
  return value;
}
