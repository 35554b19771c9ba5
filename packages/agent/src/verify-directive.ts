/**
 * §9.7 / §13.4 steps 1–2 for one drained (or pushed) directive, before an agent may act on it: the
 * signature over the context rebuilt from the directive as received (recomputed `payload_sha256`),
 * the window, the shape against inbound-message.schema.json (an injected `request`/`action`/`state`
 * is unsigned, so only the shape check stops it), the addressee, then the `jti` store. What comes
 * back carries only the known fields: unknown ones are unsigned too and never reach the agent's
 * execution context (§13.4 step 1). Dedup on the directive `id` (step 3) is the caller's.
 *
 * Addressee: `to` must be exactly `agent:<agentId>` or, when the caller names the session it
 * drained with (`session`), `agent:<agentId>#<session>`. Without `session` the SDK holds no "own
 * current session" to compare with, so a session-qualified `to` is refused as wrong_addressee rather
 * than accepted for any session (§13.4's v0.5 amendment).
 */
import type { Directive } from "@ma2h/protocol/directive";
import { checkDirectiveDelivery } from "@ma2h/protocol/inbound-verify";
import { inboundDirectiveSchema } from "@ma2h/protocol/inbound-message";
import type { HubKeys } from "./keys";
import type { ReplayStore } from "./stores";
import { checkWithKeys, defaultReplayStore, fail, keySource, windowOption } from "./verification";

export interface VerifyDirectiveOptions {
  /** The agent's own id (without `agent:`). */
  agentId: string;
  /** The agent's own current session (`sess_…`) the directive was drained with (§8.7.1, §13.4). */
  session?: string;
  /** The Hub's ed25519 keys (this Hub signs directives with them, §9.7)… */
  hubUrl?: string;
  hubKeys?: HubKeys;
  /** …or, for a Hub advertising `inbound.signature_algs: ["hmac-sha256"]`, the shared secret(s). Never both. */
  hmacSecret?: string | string[];
  /** Default: one in-memory store for the whole process. */
  replayStore?: ReplayStore;
  /** ±seconds around the agent's clock (default 120, §9.7). */
  windowSeconds?: number;
  now?: () => Date;
  fetch?: typeof fetch;
}

/** The §13.1 delivered-directive fields; anything else is dropped. */
const KNOWN_FIELDS = [
  "ma2h_version",
  "type",
  "id",
  "from",
  "to",
  "created_at",
  "title",
  "body",
  "priority",
  "tags",
  "context",
  "expires_at",
  "sensitive",
] as const;

/** Verifies one mailbox entry `{directive, signature}`; throws VerificationError when it must not be acted on. */
export async function verifyDirective(
  entry: { directive: unknown; signature: string },
  options: VerifyDirectiveOptions,
): Promise<Directive> {
  if (typeof options?.agentId !== "string" || options.agentId === "" || options.agentId.startsWith("agent:"))
    throw new TypeError("agentId is required: the agent's own id, without the agent: prefix");
  const source = keySource(options, "the Hub's ed25519 keys, §9.7");
  const windowSeconds = windowOption(options.windowSeconds);
  const now = options.now?.() ?? new Date();
  const principal = `agent:${options.agentId}`;
  // §13.4 v0.5 amendment: a session-qualified `to` is ours only when it names our current session.
  const own = options.session === undefined ? null : `${principal}#${options.session}`;
  const to = (entry?.directive as { to?: unknown } | null)?.to;
  const self = own !== null && to === own ? own : principal;

  const signature = typeof entry?.signature === "string" ? entry.signature : null;
  const result = await checkWithKeys(source, (keys) =>
    checkDirectiveDelivery({ directive: entry?.directive, signature, self, keys, now, windowSeconds }),
  );
  if (!result.ok) fail(result.reason);

  const parsed = inboundDirectiveSchema.safeParse(entry.directive);
  if (!parsed.success) fail("invalid_shape", `not a directive (inbound-message.schema.json): ${parsed.error.message}`);

  const store = options.replayStore ?? defaultReplayStore();
  if (!(await store.checkAndRecord(result.jti, result.rememberUntil, now))) fail("replayed");
  return knownFields(parsed.data);
}

function knownFields(d: Record<string, unknown>): Directive {
  const out: Record<string, unknown> = {};
  for (const key of KNOWN_FIELDS) if (d[key] !== undefined) out[key] = d[key];
  return out as unknown as Directive;
}
