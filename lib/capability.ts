/**
 * §8.0 capability document, built from the same configuration that enforces each limit. The v0.4
 * modules (inbound, ack, presence), v0.5 sessions (§16, with the §16.4.1 hard stop) and the
 * inter-agent leg (with `ack` and `sessions` as §8.0 requires) are advertised complete.
 */
import { deliveryPolicy } from "./delivery/policy";
import { env, heldLimits, inboundLimits, interAgentSettings, limits, sessionLimits, streamLimits } from "./env";
import { INTER_AGENT_KINDS } from "@ma2h/protocol/entry-kinds";
import { HUB_VERSION } from "@ma2h/protocol/versions";

export function capabilityDocument(): Record<string, unknown> {
  const l = limits();
  const p = deliveryPolicy();
  const inbound = inboundLimits();
  const sessions = sessionLimits();
  const interAgent = interAgentSettings();
  const base = env().publicUrl;
  return {
    ma2h_version: HUB_VERSION,
    max_body_bytes: l.maxBodyBytes,
    max_part_bytes: l.maxPartBytes,
    max_context_parts: l.maxContextParts,
    auth_schemes: ["bearer", "apikey"],
    callback_auth_schemes: ["hmac", "bearer", "apikey"],
    signature_algs: ["hmac-sha256", "ed25519"],
    rate_limit: {
      requests_per_minute: l.requestsPerMinute,
      inbox_depth: l.inboxDepth,
      // Extension (docs/decisions/auth-and-security.md, "What counts, and when"): parked long-polls and drains one agent may hold at once,
      // across all its keys and the Hub's web processes; over it is 429 + Retry-After. Clients that
      // do not know the field ignore it (§10).
      max_parked_per_agent: heldLimits().parkedPerAgent,
      // §8.6: addressed submits count against this budget only (lib/http/routes/submit.ts); and
      // (extension, docs/decisions/auth-and-security.md) the un-acked addressed messages one sender may hold in one
      // destination's mailbox — over it, 429 + Retry-After.
      ...(interAgent.enabled
        ? {
            inter_agent_requests_per_minute: interAgent.requestsPerMinute,
            max_pending_per_sender: inbound.maxPerSender,
          }
        : {}),
    },
    retention_days: l.retentionDays,
    replay_window_seconds: l.replayWindowSeconds,
    // Extensions for limits §8 calls "advertised" but gives no field (docs/decisions/protocol.md).
    max_wait_seconds: l.maxWaitSeconds,
    idempotency_ttl_seconds: l.idempotencyTtlSeconds,
    callback_max_attempts: p.retry.maxAttempts,
    callback_max_duration_seconds: Math.floor(p.retry.maxDurationMs / 1000),
    // Where the ed25519 verification keys (§9.2, §9.7) live, so an agent SDK finds them from the one
    // document it already reads; clients that do not know the field ignore it (§10).
    signing_keys_url: `${base}/.well-known/ma2h-keys`,
    // §8.7 / §13: the mailbox is the only channel (no inbound webhook); every delivery is signed
    // with the published ed25519 keys (§9.7).
    inbound: {
      enabled: true,
      poll_url: `${base}/v1/inbox`,
      ack_url: `${base}/v1/inbox/ack`,
      max_batch: inbound.maxBatch,
      visibility_timeout_seconds: inbound.visibilityTimeoutSeconds,
      retention_days: inbound.retentionDays,
      signature_algs: ["ed25519"],
      webhook_supported: false,
      // §8.7.1: the drain and the ack accept the caller's own live `?session=`.
      session_param: true,
      // §8.7.2 (lib/mailbox/stream.ts): held at most this long, never past the lease minus a margin,
      // never longer than the presence window; `sessions.min_ttl_seconds` stays above it.
      stream_url: `${base}/v1/inbox/stream`,
      stream_max_hold_seconds: streamLimits().maxHoldSeconds,
    },
    // §16 (lib/sessions): the bounds registration clamps to, the live cap, the deployment ceiling on
    // agents reading sibling sessions (each account narrows it, off by default), how long ended
    // sessions stay readable, and the §16.4.1 durable stop (all six points, docs/decisions/sessions.md).
    sessions: {
      enabled: true,
      min_ttl_seconds: sessions.minTtlSeconds,
      max_ttl_seconds: sessions.maxTtlSeconds,
      max_live_per_agent: sessions.maxLivePerAgent,
      agent_list_visibility: sessions.agentListVisibility,
      terminal_retention_seconds: sessions.terminalRetentionSeconds,
      operator_hard_stop: true,
    },
    // §14: acks are pulled only (transport-trusted), so no push signature_algs are advertised.
    ack: { enabled: true },
    presence: { enabled: true, freshness_seconds: inbound.presenceFreshnessSeconds },
    // §8.0 (choice A14): `enabled` is the deployment ceiling — each account must also opt in, and
    // an addressed submit from one that has not is 422. Sender allowlists are always supported.
    inter_agent: {
      enabled: interAgent.enabled,
      entry_kinds: [...INTER_AGENT_KINDS],
      sender_allowlists: true,
    },
  };
}
