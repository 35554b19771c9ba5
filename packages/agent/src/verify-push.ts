/**
 * §9.2 receipt of a pushed Response: the one function an agent's callback calls before it may act.
 * It rebuilds the signed context from the body it received (recomputing `payload_sha256`) and the
 * callback URL it registered, screens `v1` (dp-025), checks `t` against its own clock, verifies the
 * signature with the hmac secret(s) OR the Hub's ed25519 keys — only the pinned `keyId` when given,
 * so another account's push signed by the same Hub is refused — validates the §6 shape, refuses an
 * `in_reply_to` its submit journal never sent (when given one), and only then records the `jti` (a
 * forged request cannot poison the replay store). The rules are @ma2h/protocol's.
 */
import { type HubResponse, responseSchema } from "@ma2h/protocol/response";
import type { VerificationKey } from "@ma2h/protocol/signing";
import { checkResponsePush } from "@ma2h/protocol/verify";
import type { HubKeys } from "./keys";
import type { ReplayStore } from "./stores";
import { checkWithKeys, defaultReplayStore, fail, keySource, windowOption } from "./verification";

export { VerificationError, type VerificationFailure } from "./verification";

export interface VerifyPushOptions {
  /** The callback URL exactly as the agent put it in `callback.url` (never normalised). */
  callbackUrl: string;
  /** hmac scheme: the secret as registered; several during a rotation overlap (§9.2). */
  hmacSecret?: string | string[];
  /** Other schemes: the Hub whose ed25519 keys sign (found via its capability document). */
  hubUrl?: string;
  hubKeys?: HubKeys;
  /**
   * With hubUrl/hubKeys: the key id(s) that sign this agent's account's pushes (`GET /v1/agents/me`
   * → `push_signing.key_id`; several during a rotation overlap). Any other key — the same Hub's key
   * of another account included — is refused (`unexpected_key`). Unset: any key the Hub publishes.
   */
  keyId?: string | readonly string[];
  /**
   * The agent's own submit journal (e.g. FileSubmitJournal): a push answering a message it never
   * submitted (`in_reply_to` not among its acks) is refused (`not_sent`).
   */
  journal?: SentJournal;
  /** Default: one in-memory store for the whole process. */
  replayStore?: ReplayStore;
  /** ±seconds around the agent's clock (default 120, §9.2). */
  windowSeconds?: number;
  now?: () => Date;
  fetch?: typeof fetch;
}

/** What a verifier needs of a submit journal: whether a message id is one of its own submits. */
export interface SentJournal {
  sent(messageId: string): Promise<boolean>;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/** Verifies a pushed Response; throws VerificationError when it must not be acted on. */
export async function verifyPush(
  headers: HeaderBag,
  rawBody: string | Uint8Array,
  options: VerifyPushOptions,
): Promise<HubResponse> {
  if (typeof options?.callbackUrl !== "string" || options.callbackUrl === "")
    throw new TypeError("callbackUrl is required: the URL exactly as registered in callback.url");
  const source = keySource(options, "every other scheme");
  if (options.journal !== undefined && typeof options.journal?.sent !== "function")
    throw new TypeError(
      "journal must be a submit journal with sent(messageId) (MemorySubmitJournal, FileSubmitJournal)",
    );
  const windowSeconds = windowOption(options.windowSeconds);
  const now = options.now?.() ?? new Date();

  const body = parseBody(rawBody);
  const check = (keys: readonly VerificationKey[]) =>
    checkResponsePush({
      body: body ?? null,
      header: signatureHeader(headers),
      callbackUrl: options.callbackUrl,
      keys,
      now,
      windowSeconds,
    });
  // An unreadable body fails the header and window checks like any other, then as a body: no key
  // fetch for what cannot have been signed.
  const result = body === undefined ? check([]) : await checkWithKeys(source, check);
  if (!result.ok) {
    if (result.reason === "signature_mismatch" && body === undefined)
      fail("invalid_body", "the body is not a JSON object");
    fail(result.reason);
  }

  // §6: what was signed is still checked for shape before an agent reads it.
  const parsed = responseSchema.safeParse(body);
  if (!parsed.success) fail("invalid_shape", `the pushed body is not a §6 Response: ${parsed.error.message}`);
  // Signed by our Hub for our callback URL, yet not an answer to anything we asked: refused.
  if (options.journal && !(await options.journal.sent(parsed.data.in_reply_to)))
    fail("not_sent", `${parsed.data.in_reply_to} is not a message this agent's journal submitted`);

  const store = options.replayStore ?? defaultReplayStore();
  if (!(await store.checkAndRecord(result.jti, result.rememberUntil, now))) fail("replayed");
  return parsed.data;
}

/** `MA2H-Signature`, case-insensitively, from Fetch `Headers` or Node's IncomingHttpHeaders. */
function signatureHeader(headers: HeaderBag): string | null {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get("ma2h-signature");
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== "ma2h-signature" || value === undefined) continue;
    values.push(...(Array.isArray(value) ? value : [value]));
  }
  // Several values are joined as HTTP would; the parser then refuses the repeated parameters.
  return values.length === 0 ? null : values.join(", ");
}

/** The received body as a JSON object; undefined when it is not UTF-8 JSON of an object. */
function parseBody(raw: string | Uint8Array): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = typeof raw === "string" ? raw : new TextDecoder("utf-8", { fatal: true }).decode(raw);
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
