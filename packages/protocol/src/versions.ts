/**
 * §10 version handling: the major gate (before schema validation, so an unknown major reads as
 * `version_not_supported`, not a pattern failure) and the push-parity gate (after it).
 */
import { HubError } from "./errors";
import { callbackOf, type Message } from "./message";

/** The version this Hub speaks and mints (capability, acks, directives, entries). */
export const HUB_VERSION = "0.6";
/** §10 push parity: the §9.2 signature-break minor. Pushes below it cannot be verified. */
export const PUSH_MIN_MINOR = 3;
/** §4, §10: `to` / `agent.session` / the inter-agent leg need minor ≥ 5. */
export const ADDRESSING_MIN_MINOR = 5;

const CANONICAL = /^0\.(0|[1-9]\d*)$/;
const MAJOR_MINOR = /^(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** `MAJOR.MINOR` with no leading zeros, as numbers; anything else is null (e.g. "0.03", "0.5.1"). */
export function parseVersion(v: unknown): { major: number; minor: number } | null {
  if (typeof v !== "string") return null;
  const m = MAJOR_MINOR.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

/** §10 / v0.4 schema: the canonical `0.x` spelling. */
export function isCanonicalVersion(v: string): boolean {
  return CANONICAL.test(v);
}

/**
 * §10: the major is the integer before the first dot; a major other than 0 → `400
 * version_not_supported`. A missing, non-string or non-numeric version is left to the schema.
 */
export function assertSupportedMajor(envelope: unknown): void {
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) return;
  const version = (envelope as { ma2h_version?: unknown }).ma2h_version;
  if (typeof version !== "string") return;
  const dot = version.indexOf(".");
  const major = dot < 0 ? version : version.slice(0, dot);
  if (!/^\d+$/.test(major)) return;
  if (Number(major) !== 0) {
    throw new HubError(
      "version_not_supported",
      `ma2h_version ${JSON.stringify(version)}: major ${major} is not supported (this Hub speaks 0.x)`,
    );
  }
}

/**
 * §10 push parity: an ask/task requesting a push callback at a minor below 3 is rejected
 * `version_not_supported` (its agent cannot verify the payload-bound §9.2 signature). Pull is fine.
 */
export function assertPushParity(message: Message): void {
  const callback = callbackOf(message);
  if (callback?.mode !== "push") return;
  const version = parseVersion(message.ma2h_version);
  if (version === null || version.minor < PUSH_MIN_MINOR) {
    throw new HubError(
      "version_not_supported",
      `ma2h_version ${message.ma2h_version}: a push callback needs ≥ 0.${PUSH_MIN_MINOR} (§10 push parity); use pull or upgrade`,
    );
  }
}
