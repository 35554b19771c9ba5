/**
 * The callback origin proof (docs/security.md "One receiver, one account"): an account that wants
 * an origin another account already binds serves its token (lib/principals/bindings.ts
 * `originProofToken`) at `<origin>/.well-known/ma2h-callback-proof`, one token a line, and adding
 * the binding again fetches it through the Hub's one SSRF-safe client (§9.4): no redirects, small
 * body, the dev loopback allowlist only in dev mode. Several accounts may list their tokens there.
 */
import { env } from "../env";
import { type AddBindingInput, addBinding, type BindingInfo, OriginClaimedError } from "../principals/bindings";
import type { AdminOptions } from "../principals/admin-scope";
import { getSmall } from "./egress";
import { devCallbackAllowlist } from "./policy";

const PROOF_MAX_BYTES = 16 * 1024;
const PROOF_TIMEOUT_MS = 5_000;

/** Does `url` serve `token` as one of its lines (2xx only)? */
export async function originServesProof(url: string, token: string): Promise<boolean> {
  const result = await getSmall(url, {
    headers: { accept: "text/plain" },
    timeoutMs: PROOF_TIMEOUT_MS,
    maxResponseBytes: PROOF_MAX_BYTES,
    allowLoopback: env().MA2H_DEV_MODE ? devCallbackAllowlist() : new Set(),
  });
  if (!result.ok || result.status < 200 || result.status > 299 || !result.body) return false;
  return result.body
    .toString("utf8")
    .split(/\r?\n/)
    .some((line) => line.trim() === token);
}

/**
 * addBinding, and when the origin is another account's, the proof: served → the binding is added;
 * not served → the refusal, which says what to serve where. What the CLI and the admin page call.
 */
export async function addBindingWithProof(input: AddBindingInput, opts?: AdminOptions): Promise<BindingInfo> {
  try {
    return await addBinding(input, opts);
  } catch (err) {
    if (!(err instanceof OriginClaimedError)) throw err;
    if (!(await originServesProof(err.proof.url, err.proof.token))) throw err;
    return addBinding(input, { ...opts, proven: true });
  }
}
