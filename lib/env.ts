/**
 * Validated configuration. One place reads process.env; every limit the Hub enforces comes from
 * here, and the capability document (§8.0) advertises the same values (docs: README configuration).
 */
import { z } from "zod";
import { type Cidr, parseCidrList } from "./net/cidr";
import { type HostPolicy, parseHostPolicy } from "./net/host-policy";
import { processWide } from "./process-wide";

/** The peers whose X-Forwarded-* headers trusted-proxy mode believes: loopback unless configured. */
export const DEFAULT_TRUSTED_PROXIES = "127.0.0.1/32,::1/128";

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const flag = z
  .string()
  .optional()
  .transform((v) => v === "1" || v === "true");

/** An optional setting where an empty value means unset. */
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v ? v : undefined));

/**
 * Secret key material: at least 32 bytes, counted as the UTF-8 length of the value as given
 * (no trimming, no decoding of hex or base64). A shorter one is refused at start, never padded.
 */
const MIN_SECRET_BYTES = 32;
const secretMaterial = z
  .string()
  .optional()
  .refine((v) => v === undefined || v === "" || Buffer.byteLength(v, "utf8") >= MIN_SECRET_BYTES, {
    message:
      `must be at least ${MIN_SECRET_BYTES} bytes (UTF-8 length of the value as given); ` +
      "generate one with `openssl rand -hex 32` — changing it needs `ma2h-hub secrets rotate` (docs/DEPLOYMENT.md)",
  });

/** A bearer token an operator picks (MA2H_METRICS_TOKEN): as long as a secret, never guessable. */
const bearerToken = z
  .string()
  .optional()
  .transform((v) => (v ? v : undefined))
  .refine((v) => v === undefined || Buffer.byteLength(v, "utf8") >= MIN_SECRET_BYTES, {
    message: `must be at least ${MIN_SECRET_BYTES} bytes; generate one with \`openssl rand -hex 32\``,
  });

/** The kinds of OpenID Connect issuer the Hub knows (MA2H_OIDC_KIND). */
export const OIDC_KINDS = ["generic", "entra"] as const;
export type OidcKind = (typeof OIDC_KINDS)[number];
/** A claim name the Hub reads (not `_claim_names`-style internals; those start with `_`). */
const CLAIM_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces. */
const SCOPE_LIST = /^[\x21\x23-\x5B\x5D-\x7E]+( +[\x21\x23-\x5B\x5D-\x7E]+)*$/;

/** An optional TCP port where an empty value means unset. */
const optionalPort = z.preprocess(
  (v) => (v === "" ? undefined : v),
  z.coerce.number().int().min(1).max(65_535).optional(),
);

const schema = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL is required"),
  // The per-process query pool (lib/db.ts); no path holds more than one of its connections at once.
  MA2H_DATABASE_POOL_MAX: int(10, 1),
  REDIS_URL: z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined)),
  MA2H_QUEUE_PREFIX: z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined)),
  PORT: int(3000, 1),
  HOST: z.string().default("127.0.0.1"),
  MA2H_PUBLIC_URL: z.string().optional(),
  AUTH_SECRET: secretMaterial,
  // Sign-in providers (lib/web-auth/providers.ts): each is offered only when all its variables are set.
  AUTH_OIDC_ISSUER: optionalText,
  AUTH_OIDC_CLIENT_ID: optionalText,
  AUTH_OIDC_CLIENT_SECRET: optionalText,
  AUTH_OIDC_NAME: optionalText,
  // What the OIDC issuer is, where it differs from the standard (signInProviderSettings below):
  // `entra` takes Microsoft Entra ID's `xms_edov` in place of `email_verified` (lib/web-auth/verified-email.ts).
  MA2H_OIDC_KIND: z.preprocess(
    (v) => (v === "" || v === undefined ? "generic" : v),
    z.enum(OIDC_KINDS, { message: `must be one of ${OIDC_KINDS.join(", ")}` }),
  ),
  // The ID-token claim whose values put a person in the account groups mapped from them, at each
  // sign-in through the OIDC provider (lib/web-auth/groups-claim.ts); unset: no group changes at sign-in.
  MA2H_OIDC_GROUPS_CLAIM: optionalText.refine((v) => v === undefined || CLAIM_NAME.test(v), {
    message: "must be a claim name: 1-64 characters of letters, digits and _ . : -",
  }),
  // Scopes the Hub asks for beyond `openid email profile` (e.g. `groups`, for an Okta groups claim).
  MA2H_OIDC_EXTRA_SCOPES: optionalText.refine((v) => v === undefined || SCOPE_LIST.test(v.trim()), {
    message: "must be scope names separated by spaces (RFC 6749 §3.3)",
  }),
  AUTH_GITHUB_ID: optionalText,
  AUTH_GITHUB_SECRET: optionalText,
  AUTH_GOOGLE_ID: optionalText,
  AUTH_GOOGLE_SECRET: optionalText,
  MA2H_SECRETS_KEY: secretMaterial,
  MA2H_DEV_MODE: flag,
  /** The benchmark's framework floor route (app/bench/floor); served only in dev mode. */
  MA2H_BENCH_FLOOR: flag,
  /** Submit, poll and resolve dispatched past Next's router (server/protocol-lane.ts); "0" turns it off. */
  MA2H_PROTOCOL_LANE: z
    .string()
    .optional()
    .transform((v) => v !== "0" && v !== "false"),
  /**
   * Every route's code loaded right after the web starts listening (server/route-preload.ts), so no
   * first request waits for it; "0" leaves each route to load on its first request.
   */
  MA2H_ROUTE_PRELOAD: z
    .string()
    .optional()
    .transform((v) => v !== "0" && v !== "false"),
  TLS_CERT_FILE: z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined)),
  TLS_KEY_FILE: z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined)),
  MA2H_TRUST_PROXY: flag,
  // Trusted-proxy mode believes X-Forwarded-* only from a TCP peer in these ranges (// server/forwarded.ts); a malformed list refuses the start rather than trusting a guess.
  MA2H_TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v : DEFAULT_TRUSTED_PROXIES))
    .superRefine((v, ctx) => {
      try {
        parseCidrList(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
      }
    }),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  // Tracing (lib/telemetry): on when an OTLP endpoint is set; the exporter reads the rest of OTEL_*.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  // The standard variable, read here: the batch processor no longer reads it itself.
  OTEL_BSP_SCHEDULE_DELAY: int(5000, 1),
  // §8.6 limits (advertised from these same values).
  MA2H_MAX_BODY_BYTES: int(1048576, 1024),
  MA2H_MAX_PART_BYTES: int(262144, 1),
  MA2H_MAX_CONTEXT_PARTS: int(16, 0),
  MA2H_RATE_LIMIT_PER_MINUTE: int(300, 1),
  MA2H_INBOX_DEPTH: int(1000, 1),
  MA2H_RETENTION_DAYS: int(30, 1),
  MA2H_REPLAY_WINDOW_SECONDS: int(120, 1),
  MA2H_IDEMPOTENCY_TTL_SECONDS: int(86400, 86400),
  MA2H_MAX_WAIT_SECONDS: int(60, 1),
  MA2H_EXPIRY_SWEEP_MS: int(5000, 100),
  // Held requests (lib/limits/parked.ts): per agent across processes (advertised as
  // rate_limit.max_parked_per_agent), inbox streams per person, and everything one web process holds.
  MA2H_MAX_PARKED_PER_AGENT: int(1000, 1),
  MA2H_MAX_STREAMS_PER_PERSON: int(10, 1),
  MA2H_MAX_PARKED_PER_PROCESS: int(20_000, 1),
  // The share of that ceiling one account's agents may hold in one process, in percent.
  MA2H_MAX_PARKED_PER_ACCOUNT_PERCENT: z.coerce.number().int().min(1).max(100).default(25),
  // Failed authentications one source address may make per minute (lib/http/auth-throttle.ts).
  MA2H_AUTH_FAILURES_PER_MINUTE: int(30, 1),
  // The per-process credential cache (lib/principals/credential-cache.ts): 0 turns it off.
  MA2H_AUTH_CACHE_TTL_MS: int(5000, 0),
  MA2H_AUTH_CACHE_MAX_ENTRIES: int(10_000, 1),
  // §8.3 push delivery (advertised as callback_max_attempts / callback_max_duration_seconds).
  MA2H_PUSH_BASE_DELAY_MS: int(2000, 1),
  MA2H_PUSH_BACKOFF_FACTOR: z.coerce.number().min(2).default(2),
  MA2H_PUSH_MAX_GAP_MS: int(3_600_000, 1),
  MA2H_PUSH_MAX_ATTEMPTS: int(20, 5),
  MA2H_PUSH_MAX_DURATION_SECONDS: int(86_400, 1),
  MA2H_PUSH_TIMEOUT_MS: int(10_000, 100),
  MA2H_DELIVERY_SWEEP_MS: int(10_000, 100),
  MA2H_DEV_CALLBACK_ALLOWLIST: z.string().default(""),
  // Which callback origins an account's admins may approve in the browser (the CLI is exempt):
  // host suffixes, host names and CIDRs. Unset: any origin the §9.4 rules accept.
  MA2H_CALLBACK_ORIGIN_POLICY: optionalText.superRefine((v, ctx) => {
    if (v === undefined) return;
    try {
      parseHostPolicy(v);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
    }
  }),
  MA2H_SIGNING_KEY_OVERLAP_DAYS: int(7, 0),
  // §8.7 / §13 inbound leg and §15 presence (advertised as `inbound.*` and `presence.*`).
  MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: int(60, 1),
  MA2H_INBOUND_MAX_BATCH: int(32, 1),
  MA2H_INBOUND_RETENTION_DAYS: int(30, 1),
  MA2H_INBOUND_MAILBOX_DEPTH: int(1000, 1),
  // Of that depth, the un-acked addressed messages one sending agent may hold in one mailbox.
  MA2H_INBOUND_MAX_PER_SENDER: int(100, 1),
  MA2H_PRESENCE_FRESHNESS_SECONDS: int(90, 1),
  // §16 sessions (sessionLimits() below; lib/sessions reads it).
  MA2H_SESSION_MIN_TTL_SECONDS: int(60, 1),
  MA2H_SESSION_MAX_TTL_SECONDS: int(3600, 1),
  MA2H_SESSION_DEFAULT_TTL_SECONDS: int(300, 1),
  MA2H_SESSION_MAX_LIVE_PER_AGENT: int(32, 1),
  MA2H_SESSION_TERMINAL_RETENTION_SECONDS: int(86_400, 0),
  // §16.4 the deployment ceiling on same-account agents reading each other's sessions.
  // §8.7.2 the mailbox stream's longest hold (streamLimits() below).
  MA2H_STREAM_MAX_HOLD_SECONDS: int(55, 1),
  // On unless "0" or "false".
  MA2H_SESSION_AGENT_LIST_VISIBILITY: z
    .string()
    .optional()
    .transform((v) => v !== "0" && v !== "false"),
  // The inter-agent leg (interAgentSettings() below): the deployment ceiling on the per-account
  // opt-in (on unless "0" or "false"; choice A14) and the separate budget of addressed submits (§8.6).
  MA2H_INTER_AGENT: z
    .string()
    .optional()
    .transform((v) => v !== "0" && v !== "false"),
  MA2H_INTER_AGENT_RATE_LIMIT_PER_MINUTE: int(120, 1),
  // Notifications (docs/notifications.md): email is on only when SMTP_URL is set.
  SMTP_URL: optionalText,
  MA2H_MAIL_FROM: optionalText,
  MA2H_SMTP_TIMEOUT_MS: int(30_000, 100),
  // Mails go over a pool of at most this many SMTP connections per worker, each reused for many mails.
  MA2H_SMTP_CONNECTIONS: int(5, 1),
  MA2H_NOTIFY_RETRY_BASE_MS: int(30_000, 1),
  MA2H_NOTIFY_MAX_ATTEMPTS: int(8, 1),
  // Slack (docs/notifications.md "Slack"): the Web API base URL (tests point it at a local
  // fake) and the bound on each call — kept well under a notification claim's lease.
  SLACK_API_URL: z.string().url().default("https://slack.com/api/"),
  MA2H_SLACK_TIMEOUT_MS: int(10_000, 100),
  // Microsoft Teams (docs/notifications.md "Microsoft Teams"): where the Bot Framework's signing keys
  // are published (OpenID metadata) and where the bot's app token is obtained (`{tenant}` is the
  // connection's tenant); tests point both at local stand-ins. MA2H_TEAMS_SERVICE_HOSTS adds Bot
  // Connector hosts, in MA2H_CALLBACK_ORIGIN_POLICY's notation, to the known Microsoft ones.
  TEAMS_OPENID_METADATA_URL: z
    .string()
    .url()
    .default("https://login.botframework.com/v1/.well-known/openidconfiguration"),
  TEAMS_TOKEN_URL: z.string().url().default("https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token"),
  MA2H_TEAMS_SERVICE_HOSTS: optionalText.superRefine((v, ctx) => {
    if (v === undefined) return;
    try {
      parseHostPolicy(v);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
    }
  }),
  MA2H_TEAMS_TIMEOUT_MS: int(10_000, 100),
  // Browser push (docs/notifications.md "Browser push"): the VAPID `sub` (RFC 8292 §2.1), a
  // mailto: or https: URL; unset → derived (webPushSettings below).
  MA2H_VAPID_SUBJECT: optionalText,
  // Push services a browser subscription may name beyond the known ones (lib/notifications/web-push/
  // endpoint.ts), in MA2H_CALLBACK_ORIGIN_POLICY's notation; a malformed list refuses the start.
  MA2H_PUSH_SERVICES: optionalText.superRefine((v, ctx) => {
    if (v === undefined) return;
    try {
      parseHostPolicy(v);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
    }
  }),
  // Metrics (docs/DEPLOYMENT.md "Metrics"): GET /metrics exists only with a token; a worker serves
  // its own on MA2H_WORKER_METRICS_PORT — under its own token when MA2H_WORKER_METRICS_TOKEN is set,
  // on MA2H_WORKER_METRICS_HOST when set (workerMetricsSettings below).
  MA2H_METRICS_TOKEN: bearerToken,
  MA2H_WORKER_METRICS_PORT: optionalPort,
  MA2H_WORKER_METRICS_TOKEN: bearerToken,
  MA2H_WORKER_METRICS_HOST: optionalText,
});

export type Env = z.infer<typeof schema> & { publicUrl: string; secretsKeyMaterial: string | undefined };

/** Parsed once per process, whichever copy of this module reads it first (lib/process-wide.ts). */
const parsedEnv = () => processWide("ma2h.env", () => ({ cached: null as Env | null }));

export function env(): Env {
  const slot = parsedEnv();
  if (slot.cached) return slot.cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`Invalid configuration: ${first?.path.join(".")}: ${first?.message}`);
  }
  const e = parsed.data;
  refuseDevRelaxationsInProduction(e);
  refuseMessageRetentionShorterThanInbound(e);
  // Fail closed: a metrics port without a token would be a listener that refuses everyone.
  if (
    e.MA2H_WORKER_METRICS_PORT !== undefined &&
    e.MA2H_WORKER_METRICS_TOKEN === undefined &&
    e.MA2H_METRICS_TOKEN === undefined
  )
    throw new Error(
      "Invalid configuration: MA2H_WORKER_METRICS_PORT is set but neither MA2H_WORKER_METRICS_TOKEN nor MA2H_METRICS_TOKEN is",
    );
  // The long-poll cap is 60 s by §8.2; a larger configured value is clamped, never honoured.
  e.MA2H_MAX_WAIT_SECONDS = Math.min(e.MA2H_MAX_WAIT_SECONDS, 60);
  e.MA2H_EXPIRY_SWEEP_MS = Math.min(e.MA2H_EXPIRY_SWEEP_MS, 5000);
  // §8.3 caps: never past 24 h in total, each gap at most an hour, a sweep at least every 10 s.
  e.MA2H_PUSH_MAX_DURATION_SECONDS = Math.min(e.MA2H_PUSH_MAX_DURATION_SECONDS, 86_400);
  e.MA2H_PUSH_MAX_GAP_MS = Math.min(e.MA2H_PUSH_MAX_GAP_MS, 3_600_000);
  e.MA2H_DELIVERY_SWEEP_MS = Math.min(e.MA2H_DELIVERY_SWEEP_MS, 10_000);
  // Revocation reaches other processes by NOTIFY; the TTL bounds a revoked credential's life in a
  // process whose LISTEN connection died silently, so it may be lowered, never raised past 5 s.
  e.MA2H_AUTH_CACHE_TTL_MS = Math.min(e.MA2H_AUTH_CACHE_TTL_MS, 5000);
  // The default base of poll_url/review_url uses the scheme the Hub itself serves: a TLS Hub must
  // not hand out http:// links it will never answer.
  const scheme = e.TLS_CERT_FILE && e.TLS_KEY_FILE ? "https" : "http";
  const publicUrl = (e.MA2H_PUBLIC_URL ?? `${scheme}://127.0.0.1:${e.PORT}`).replace(/\/+$/, "");
  const read = { ...e, publicUrl, secretsKeyMaterial: e.MA2H_SECRETS_KEY || e.AUTH_SECRET || undefined };
  parsedEnv().cached = read;
  return read;
}

/**
 * §9.4: a relaxation MUST fail closed. A Hub that serves HTTPS (TLS_CERT_FILE/TLS_KEY_FILE) or sits
 * behind a TLS proxy (MA2H_TRUST_PROXY) is a production Hub; a leftover dev setting there is refused
 * at start — in every process that reads the configuration — never silently honoured or ignored.
 */
function refuseDevRelaxationsInProduction(e: z.infer<typeof schema>): void {
  const production = productionModeName(e);
  if (!production) return;
  const relaxations = [
    e.MA2H_DEV_MODE ? "MA2H_DEV_MODE" : null,
    e.MA2H_DEV_CALLBACK_ALLOWLIST.trim() !== "" ? "MA2H_DEV_CALLBACK_ALLOWLIST" : null,
  ].filter((name) => name !== null);
  if (relaxations.length === 0) return;
  throw new Error(
    `Refusing to start: ${relaxations.join(" and ")} ${relaxations.length > 1 ? "are" : "is"} set in ${production}. ` +
      "Development relaxations are never honoured by a production Hub (MA2H §9.4: a relaxation fails closed); " +
      `unset ${relaxations.join(" and ")}.`,
  );
}

/**
 * An addressed message's mailbox entry lives up to `MA2H_INBOUND_RETENTION_DAYS` (§13.3), and the
 * sender learns how it ended from the message itself — its §8.2 pull is authoritative for the
 * entry's `expired` (§14.2). Purging the message sooner would leave the entry's end with nobody to
 * read it, so a message retention shorter than the inbound one is refused at start, in every
 * process that reads the configuration, rather than silently stretched.
 */
function refuseMessageRetentionShorterThanInbound(e: z.infer<typeof schema>): void {
  if (e.MA2H_RETENTION_DAYS >= e.MA2H_INBOUND_RETENTION_DAYS) return;
  throw new Error(
    `Refusing to start: MA2H_RETENTION_DAYS (${e.MA2H_RETENTION_DAYS}) is shorter than ` +
      `MA2H_INBOUND_RETENTION_DAYS (${e.MA2H_INBOUND_RETENTION_DAYS}). A message must stay pullable (§8.2) ` +
      "for as long as its mailbox entry can still end (§13.3); raise MA2H_RETENTION_DAYS or lower " +
      "MA2H_INBOUND_RETENTION_DAYS.",
  );
}

/** Which production setting is on, as the operator wrote it; null in neither (dev mode or no mode). */
function productionModeName(e: {
  TLS_CERT_FILE?: string;
  TLS_KEY_FILE?: string;
  MA2H_TRUST_PROXY: boolean;
}): string | null {
  if (e.TLS_CERT_FILE || e.TLS_KEY_FILE) return "TLS mode (TLS_CERT_FILE/TLS_KEY_FILE)";
  if (e.MA2H_TRUST_PROXY) return "trusted-proxy mode (MA2H_TRUST_PROXY)";
  return null;
}

/**
 * The browser reaches this Hub over HTTPS only (TLS or trusted-proxy mode): only the `__Secure-`
 * session cookie is read, cookies are issued with that prefix, and pages carry HSTS.
 */
export function servesHttpsOnly(): boolean {
  return productionModeName(env()) !== null;
}

/**
 * The same question asked of the raw environment, before the rest of it is complete (the embedded
 * database's start, server/hub.ts, decides whether to imply dev mode).
 */
export function productionTransportConfigured(source: NodeJS.ProcessEnv = process.env): boolean {
  const picked = schema.pick({ TLS_CERT_FILE: true, TLS_KEY_FILE: true, MA2H_TRUST_PROXY: true }).safeParse(source);
  return picked.success && productionModeName(picked.data) !== null;
}

/** MA2H_TRUSTED_PROXIES parsed (validated by `env()` at start). */
export function trustedProxies(): Cidr[] {
  return parseCidrList(env().MA2H_TRUSTED_PROXIES);
}

/** Tests and the CLI re-read the environment after changing it. */
export function resetEnvCache(): void {
  parsedEnv().cached = null;
}

/** The web's metrics settings; null when MA2H_METRICS_TOKEN is unset (metrics are off). */
export function metricsSettings(): { token: string } | null {
  const e = env();
  return e.MA2H_METRICS_TOKEN ? { token: e.MA2H_METRICS_TOKEN } : null;
}

/**
 * The worker's own `GET /metrics`; null without MA2H_WORKER_METRICS_PORT. Its token is
 * MA2H_WORKER_METRICS_TOKEN, else the web's. Its address is MA2H_WORKER_METRICS_HOST, else — in
 * trusted-proxy mode, where `HOST` is opened to the proxy's network and the worker's plaintext
 * listener has no proxy in front of it — loopback, else `HOST` (docs/DEPLOYMENT.md "Metrics").
 */
export function workerMetricsSettings(): { port: number; host: string; token: string } | null {
  const e = env();
  const token = e.MA2H_WORKER_METRICS_TOKEN ?? e.MA2H_METRICS_TOKEN;
  if (e.MA2H_WORKER_METRICS_PORT === undefined || token === undefined) return null;
  const proxied = e.MA2H_TRUST_PROXY && !e.TLS_CERT_FILE && !e.TLS_KEY_FILE;
  return {
    port: e.MA2H_WORKER_METRICS_PORT,
    host: e.MA2H_WORKER_METRICS_HOST ?? (proxied ? "127.0.0.1" : e.HOST),
    token,
  };
}

/** The §8.6 limits as the rest of the Hub sees them. */
export function limits() {
  const e = env();
  return {
    maxBodyBytes: e.MA2H_MAX_BODY_BYTES,
    maxPartBytes: e.MA2H_MAX_PART_BYTES,
    maxContextParts: e.MA2H_MAX_CONTEXT_PARTS,
    requestsPerMinute: e.MA2H_RATE_LIMIT_PER_MINUTE,
    inboxDepth: e.MA2H_INBOX_DEPTH,
    retentionDays: e.MA2H_RETENTION_DAYS,
    replayWindowSeconds: e.MA2H_REPLAY_WINDOW_SECONDS,
    idempotencyTtlSeconds: e.MA2H_IDEMPOTENCY_TTL_SECONDS,
    maxWaitSeconds: e.MA2H_MAX_WAIT_SECONDS,
  };
}

/** MA2H_CALLBACK_ORIGIN_POLICY parsed (validated by `env()` at start); null when unset. */
export function callbackOriginPolicy(): HostPolicy | null {
  const text = env().MA2H_CALLBACK_ORIGIN_POLICY;
  return text === undefined ? null : parseHostPolicy(text);
}

/** Caps on held requests (lib/limits/parked.ts); over one is `429` (`503` for the process ceiling). */
export function heldLimits() {
  const e = env();
  return {
    /** Parked long-polls and drains of one agent, all its keys, all web processes together. */
    parkedPerAgent: e.MA2H_MAX_PARKED_PER_AGENT,
    /** Open inbox event streams of one person, all web processes together. */
    streamsPerPerson: e.MA2H_MAX_STREAMS_PER_PERSON,
    /** Everything one web process holds at once (parked requests and streams). */
    parkedPerProcess: e.MA2H_MAX_PARKED_PER_PROCESS,
    /** What one account's agents may hold of it together, in one web process (at least 1). */
    parkedPerAccount: Math.max(
      1,
      Math.floor((e.MA2H_MAX_PARKED_PER_PROCESS * e.MA2H_MAX_PARKED_PER_ACCOUNT_PERCENT) / 100),
    ),
  };
}

/** The §8.7 mailbox and §15 presence settings, enforced and advertised from here. */
export function inboundLimits() {
  const e = env();
  return {
    visibilityTimeoutSeconds: e.MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS,
    maxBatch: e.MA2H_INBOUND_MAX_BATCH,
    retentionDays: e.MA2H_INBOUND_RETENTION_DAYS,
    /** Un-acked directives one mailbox may hold; authoring beyond it is `429 rate_limited`. */
    mailboxDepth: e.MA2H_INBOUND_MAILBOX_DEPTH,
    /** Un-acked `message` entries one sending agent may hold in one mailbox; beyond it `429`. */
    maxPerSender: e.MA2H_INBOUND_MAX_PER_SENDER,
    presenceFreshnessSeconds: e.MA2H_PRESENCE_FRESHNESS_SECONDS,
  };
}

/** OAuth client credentials of one sign-in provider. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** The sign-in providers the environment configures; a provider missing any variable is absent. */
/** §16 session settings: lib/sessions enforces them and the capability document advertises them. */
export function sessionLimits() {
  const e = env();
  const minTtl = e.MA2H_SESSION_MIN_TTL_SECONDS;
  const maxTtl = Math.max(e.MA2H_SESSION_MAX_TTL_SECONDS, minTtl);
  return {
    minTtlSeconds: minTtl,
    maxTtlSeconds: maxTtl,
    defaultTtlSeconds: Math.min(Math.max(e.MA2H_SESSION_DEFAULT_TTL_SECONDS, minTtl), maxTtl),
    maxLivePerAgent: e.MA2H_SESSION_MAX_LIVE_PER_AGENT,
    terminalRetentionSeconds: e.MA2H_SESSION_TERMINAL_RETENTION_SECONDS,
    /** The deployment ceiling on the per-account grant (§16.4). */
    agentListVisibility: e.MA2H_SESSION_AGENT_LIST_VISIBILITY,
  };
}

/**
 * The inter-agent leg: `enabled` is the deployment ceiling (an account must also opt in, §8.0 /
 * choice A14); addressed submits count against `requestsPerMinute` only (§8.6).
 */
export function interAgentSettings() {
  const e = env();
  return { enabled: e.MA2H_INTER_AGENT, requestsPerMinute: e.MA2H_INTER_AGENT_RATE_LIMIT_PER_MINUTE };
}

/**
 * §8.7.2 the nonzero margin a stream hold keeps before its session's lease expiry, so an immediate
 * reconnect — the renewal — lands while the lease still runs: 5 s, or a fifth of a short TTL.
 */
export function leaseMarginMs(ttlSeconds: number): number {
  return Math.min(5000, Math.max(200, Math.floor((ttlSeconds * 1000) / 5)));
}

/**
 * §8.7.2 the advertised `stream_max_hold_seconds`: the configured hold, never more than the presence
 * window (a MUST) nor more than the shortest lease minus its margin — so `sessions.min_ttl_seconds`
 * stays above every hold (§8.0), whatever the two are set to.
 */
export function streamLimits() {
  const e = env();
  const minTtl = sessionLimits().minTtlSeconds;
  const underLease = Math.floor((minTtl * 1000 - leaseMarginMs(minTtl)) / 1000);
  return {
    maxHoldSeconds: Math.max(
      1,
      Math.min(e.MA2H_STREAM_MAX_HOLD_SECONDS, e.MA2H_PRESENCE_FRESHNESS_SECONDS, underLease),
    ),
  };
}

/** The OIDC provider's settings beyond its client: what it is, its groups claim, the scopes asked. */
export interface OidcClaimSettings {
  kind: OidcKind;
  /** The ID-token claim naming the person's groups; undefined: sign-ins change no group. */
  groupsClaim: string | undefined;
  /** `openid email profile` and MA2H_OIDC_EXTRA_SCOPES, each once. */
  scope: string;
}

export function signInProviderSettings(): {
  oidc?: OAuthClient & { issuer: string; name: string } & OidcClaimSettings;
  github?: OAuthClient;
  google?: OAuthClient;
} {
  const e = env();
  const client = (clientId: string | undefined, clientSecret: string | undefined) =>
    clientId && clientSecret ? { clientId, clientSecret } : undefined;
  const issuer = e.AUTH_OIDC_ISSUER?.replace(/\/+$/, "");
  const oidc = client(e.AUTH_OIDC_CLIENT_ID, e.AUTH_OIDC_CLIENT_SECRET);
  const scopes = new Set(["openid", "email", "profile", ...(e.MA2H_OIDC_EXTRA_SCOPES?.trim().split(/ +/) ?? [])]);
  const claims: OidcClaimSettings = {
    kind: e.MA2H_OIDC_KIND,
    groupsClaim: e.MA2H_OIDC_GROUPS_CLAIM,
    scope: [...scopes].join(" "),
  };
  return {
    oidc: issuer && oidc ? { ...oidc, ...claims, issuer, name: e.AUTH_OIDC_NAME ?? "Single sign-on" } : undefined,
    github: client(e.AUTH_GITHUB_ID, e.AUTH_GITHUB_SECRET),
    google: client(e.AUTH_GOOGLE_ID, e.AUTH_GOOGLE_SECRET),
  };
}

/**
 * next-auth reads NEXTAUTH_URL and NEXTAUTH_SECRET; MA2H_PUBLIC_URL and AUTH_SECRET are the Hub's
 * own names for them. Sets each unless the operator set it.
 */
export function exportNextAuthSettings(): void {
  const e = env();
  process.env.NEXTAUTH_URL ||= e.publicUrl;
  process.env.NEXTAUTH_SECRET ||= e.AUTH_SECRET ?? "";
}

/** The email channel's settings (docs/notifications.md); null when SMTP_URL is unset: email is off. */
export function mailSettings(): { smtpUrl: string; from: string; timeoutMs: number; connections: number } | null {
  const e = env();
  if (!e.SMTP_URL) return null;
  const host = new URL(e.publicUrl).hostname || "localhost";
  return {
    smtpUrl: e.SMTP_URL,
    from: e.MA2H_MAIL_FROM ?? `MA2H Hub <ma2h@${host}>`,
    timeoutMs: e.MA2H_SMTP_TIMEOUT_MS,
    connections: e.MA2H_SMTP_CONNECTIONS,
  };
}

/** Retries of a notification send: the first gap, doubled each time, and the attempt cap. */
export function notifyRetryPolicy(): { baseMs: number; maxAttempts: number } {
  const e = env();
  return { baseMs: e.MA2H_NOTIFY_RETRY_BASE_MS, maxAttempts: e.MA2H_NOTIFY_MAX_ATTEMPTS };
}

/**
 * The browser push channel's settings (docs/notifications.md "Browser push"). The VAPID subject is
 * how a push service reaches the operator (RFC 8292 §2.1): MA2H_VAPID_SUBJECT, else `mailto:` the
 * address of MA2H_MAIL_FROM, else the public URL when it is https, else `mailto:ma2h@<public host>`.
 */
export function webPushSettings(): { subject: string; timeoutMs: number } {
  const e = env();
  const address = e.MA2H_MAIL_FROM
    ? (/<([^<>\s]+@[^<>\s]+)>/.exec(e.MA2H_MAIL_FROM)?.[1] ?? e.MA2H_MAIL_FROM.trim())
    : null;
  const publicUrl = new URL(e.publicUrl);
  const subject =
    e.MA2H_VAPID_SUBJECT ??
    (address && !/\s/.test(address)
      ? `mailto:${address}`
      : publicUrl.protocol === "https:"
        ? publicUrl.origin
        : `mailto:ma2h@${publicUrl.hostname || "localhost"}`);
  return { subject, timeoutMs: e.MA2H_PUSH_TIMEOUT_MS };
}
