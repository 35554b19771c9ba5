/**
 * The §8.0 capability document, a zod mirror of schema/v0.6/capability.schema.json (open: unknown
 * fields allowed, e.g. the Hub's extension fields), with the v0.5 conditionals: v0.5 objects need
 * minor ≥ 5, the stream and session drain need sessions (and presence), and an enabled inter-agent
 * leg needs ack, sessions, a session drain, allowlists and all three entry kinds.
 */
import { z } from "zod";
import { integerMin, isV05, uriString, versionString } from "./wire";

const signatureAlgs = () => z.array(z.enum(["hmac-sha256", "ed25519"]));
const ENTRY_KINDS = ["message", "response", "receipt"] as const;

const inboundSchema = z.looseObject({
  enabled: z.boolean(),
  poll_url: uriString().optional(),
  ack_url: uriString().optional(),
  max_batch: integerMin(1).optional(),
  visibility_timeout_seconds: integerMin(1).optional(),
  retention_days: integerMin(1).optional(),
  signature_algs: signatureAlgs().optional(),
  webhook_supported: z.boolean().optional(),
  session_param: z.boolean().optional(),
  stream_url: uriString().optional(),
  stream_max_hold_seconds: integerMin(1).optional(),
});

export const capabilitySchema = z
  .looseObject({
    ma2h_version: versionString(),
    max_body_bytes: integerMin(1).optional(),
    max_part_bytes: integerMin(1).optional(),
    max_context_parts: integerMin(0).optional(),
    auth_schemes: z.array(z.enum(["bearer", "apikey"])).optional(),
    callback_auth_schemes: z.array(z.enum(["hmac", "bearer", "apikey"])).optional(),
    signature_algs: signatureAlgs().optional(),
    rate_limit: z
      .looseObject({
        requests_per_minute: integerMin(0).optional(),
        inbox_depth: integerMin(0).optional(),
        inter_agent_requests_per_minute: integerMin(0).optional(),
      })
      .optional(),
    retention_days: integerMin(1).optional(),
    replay_window_seconds: integerMin(1).optional(),
    // This Hub's extension (docs/decisions/agent-sdk.md "Signing keys URL"): the JWKS of its ed25519 keys.
    signing_keys_url: uriString().optional(),
    inbound: inboundSchema.optional(),
    sessions: z
      .looseObject({
        enabled: z.boolean(),
        min_ttl_seconds: integerMin(1).optional(),
        max_ttl_seconds: integerMin(1).optional(),
        max_live_per_agent: integerMin(1).optional(),
        agent_list_visibility: z.boolean().optional(),
        terminal_retention_seconds: integerMin(0).optional(),
        operator_hard_stop: z.boolean().optional(),
      })
      .optional(),
    inter_agent: z
      .looseObject({
        enabled: z.boolean(),
        entry_kinds: z
          .array(z.enum(ENTRY_KINDS))
          .refine((kinds) => new Set(kinds).size === kinds.length, { error: "must not repeat an entry kind" })
          .optional(),
        sender_allowlists: z.boolean().optional(),
      })
      .optional(),
    ack: z.looseObject({ enabled: z.boolean(), signature_algs: signatureAlgs().optional() }).optional(),
    presence: z.looseObject({ enabled: z.boolean(), freshness_seconds: integerMin(1).optional() }).optional(),
  })
  .superRefine((c, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: "custom", path, message });
    const { inbound, sessions, presence, inter_agent: interAgent, ack } = c;
    // dependentRequired: a stream advertises its hold bound (§8.7.2).
    if (inbound?.stream_url !== undefined && inbound.stream_max_hold_seconds === undefined) {
      issue(["inbound", "stream_max_hold_seconds"], "is required when stream_url is present (§8.7.2)");
    }
    // §8.0, §10: any v0.5 object or field needs a declared minor ≥ 5.
    const v05Feature =
      sessions !== undefined ||
      interAgent !== undefined ||
      (inbound !== undefined &&
        (inbound.session_param !== undefined ||
          inbound.stream_url !== undefined ||
          inbound.stream_max_hold_seconds !== undefined)) ||
      c.rate_limit?.inter_agent_requests_per_minute !== undefined;
    if (v05Feature && !isV05(c.ma2h_version))
      issue(["ma2h_version"], "must be ≥ 0.5 when a v0.5 capability is advertised (§8.0)");
    // §8.7.2: the stream is session-scoped and bounded by the presence window.
    if (inbound?.stream_url !== undefined) {
      if (sessions?.enabled !== true)
        issue(["sessions", "enabled"], "must be true when inbound.stream_url is advertised (§8.7.2)");
      if (presence?.enabled !== true)
        issue(["presence", "enabled"], "must be true when inbound.stream_url is advertised (§8.7.2)");
      if (presence !== undefined && presence.freshness_seconds === undefined)
        issue(["presence", "freshness_seconds"], "is required when inbound.stream_url is advertised (§8.7.2)");
    }
    // §8.7.1: a session-scoped drain needs the §16 registration primitive.
    if (inbound?.session_param === true && sessions?.enabled !== true)
      issue(["sessions", "enabled"], "must be true when inbound.session_param is true (§8.7.1)");
    // §8.0: an enabled inter-agent leg needs ack, sessions, the session drain, allowlists, all kinds.
    if (interAgent?.enabled === true) {
      if (!isV05(c.ma2h_version)) issue(["ma2h_version"], "must be ≥ 0.5 when inter_agent is enabled (§8.0)");
      if (ack?.enabled !== true) issue(["ack", "enabled"], "must be true when inter_agent is enabled (§8.0)");
      if (sessions?.enabled !== true) issue(["sessions", "enabled"], "must be true when inter_agent is enabled (§8.0)");
      if (inbound?.enabled !== true) issue(["inbound", "enabled"], "must be true when inter_agent is enabled (§8.0)");
      if (inbound !== undefined && inbound.session_param !== true)
        issue(["inbound", "session_param"], "must be true when inter_agent is enabled (§8.0)");
      if (inbound !== undefined && (inbound.signature_algs?.length ?? 0) < 1)
        issue(["inbound", "signature_algs"], "must be non-empty when inter_agent is enabled (§9.8)");
      if (interAgent.sender_allowlists !== true)
        issue(["inter_agent", "sender_allowlists"], "must be true when inter_agent is enabled (§8.0)");
      if ((interAgent.entry_kinds?.length ?? 0) < ENTRY_KINDS.length)
        issue(["inter_agent", "entry_kinds"], "must list message, response and receipt when enabled (§8.7)");
    }
  });

export type Capability = z.infer<typeof capabilitySchema>;
