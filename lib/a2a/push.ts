/**
 * A2A push notifications (docs/a2a.md "Push notifications"). A config is a row of
 * `a2a_push_configs` beside its task's message, accepted only for a URL within one of the agent's
 * approved callback bindings (the §9.4 rule of §8.3 callbacks). The row is its own outbox: whenever
 * the message's status differs from the status last pushed, the worker (woken by the terminal
 * NOTIFY, and its delivery sweep) POSTs the task through the SSRF-safe egress client, authenticated
 * by a JWT the account's ed25519 push key signs (verifiable against `/.well-known/ma2h-keys`, the
 * Hub's JWKS), retrying on the §8.3 schedule. A binding revoked since is never posted to.
 */
import { createHash, randomUUID } from "node:crypto";
import { A2A_CONTENT_TYPE, StreamResponse, type TaskPushNotificationConfig } from "@a2a-js/sdk";
import { HubError } from "@ma2h/protocol/errors";
import { signBytes } from "@ma2h/protocol/signing";
import { clock } from "../clock";
import { db } from "../db";
import { env } from "../env";
import { log } from "../log";
import { postBytes } from "../delivery/egress";
import { deliveryPolicy, devCallbackAllowlist } from "../delivery/policy";
import { transportAllowed } from "../delivery/push-attempt";
import { nextAttemptAt, verdictForStatus } from "../delivery/schedule";
import { accountSigningKey } from "../keys/signing-keys";
import { loadForSubmitter, loadMessage } from "../messages/access";
import { messageBody } from "../messages/serialize";
import { assertCallbackAllowed, findCallbackBinding } from "../principals/bindings";
import type { AgentPrincipal } from "../principals/types";
import { taskOf } from "./mapping";
import { findDueA2aPushConfigs } from "./push.sql";
import { responseSigner } from "./tasks";

const LEASE_MS = 60_000;
/** A push JWT is valid this long after it was made. */
const JWT_TTL_SECONDS = 300;
const MAX_CONFIGS_PER_TASK = 10;

type ConfigRow = { configId: string; url: string; token: string; messageId: string };

function toConfig(row: ConfigRow): TaskPushNotificationConfig {
  return {
    tenant: "",
    id: row.configId,
    taskId: row.messageId,
    url: row.url,
    token: row.token,
    authentication: undefined,
  };
}

/**
 * What a push config must be, checked before anything is stored (and before the submit of a
 * message that carries one): a URL within one of the agent's approved callback bindings, and no
 * credential of the client's in `authentication`.
 */
export async function checkPushConfig(principal: AgentPrincipal, config: TaskPushNotificationConfig): Promise<void> {
  if (config.authentication && (config.authentication.scheme || config.authentication.credentials))
    throw new HubError(
      "invalid_field",
      "authentication: not accepted; the Hub signs each push with a JWT of the account's push key (docs/a2a.md)",
    );
  if (typeof config.url !== "string" || config.url === "") throw new HubError("invalid_field", "url: required");
  await assertCallbackAllowed(principal.agentRowId, { mode: "push", url: config.url });
}

/**
 * Registers (or replaces) a push config of the caller's own task. The URL must lie within one of
 * the agent's approved callback bindings (`422`-style refusal otherwise); a credential in
 * `authentication` is refused — the Hub authenticates its pushes with its own signed JWT.
 */
export async function savePushConfig(
  principal: AgentPrincipal,
  taskId: string,
  config: TaskPushNotificationConfig,
): Promise<TaskPushNotificationConfig> {
  const row = await loadForSubmitter(principal, taskId);
  await checkPushConfig(principal, config);
  const configId = config.id || randomUUID();
  const now = clock.now();
  const count = await db().a2aPushConfig.count({ where: { messageId: row.id, NOT: { configId } } });
  if (count >= MAX_CONFIGS_PER_TASK)
    throw new HubError("invalid_field", `a task has at most ${MAX_CONFIGS_PER_TASK} push configs`);
  const fresh = {
    url: config.url,
    token: config.token ?? "",
    pushedStatus: null,
    attempts: 0,
    cycleStartedAt: now,
    nextAttemptAt: now,
    leaseUntil: null,
    finishedAt: null,
    lastError: null,
  };
  const saved = await db().a2aPushConfig.upsert({
    where: { messageId_configId: { messageId: row.id, configId } },
    create: { id: randomUUID(), messageId: row.id, configId, createdAt: now, ...fresh },
    update: fresh,
  });
  return toConfig(saved);
}

export async function getPushConfig(
  principal: AgentPrincipal,
  taskId: string,
  configId: string,
): Promise<TaskPushNotificationConfig> {
  const row = await loadForSubmitter(principal, taskId);
  const found = await db().a2aPushConfig.findUnique({ where: { messageId_configId: { messageId: row.id, configId } } });
  if (!found) throw new HubError("not_found", "no such push notification config");
  return toConfig(found);
}

export async function listPushConfigs(
  principal: AgentPrincipal,
  taskId: string,
): Promise<TaskPushNotificationConfig[]> {
  const row = await loadForSubmitter(principal, taskId);
  const rows = await db().a2aPushConfig.findMany({ where: { messageId: row.id }, orderBy: { createdAt: "asc" } });
  return rows.map(toConfig);
}

export async function deletePushConfig(principal: AgentPrincipal, taskId: string, configId: string): Promise<void> {
  const row = await loadForSubmitter(principal, taskId);
  await db().a2aPushConfig.deleteMany({ where: { messageId: row.id, configId } });
}

const b64url = (v: string | Uint8Array) => Buffer.from(v).toString("base64url");

/**
 * The push's `Authorization: Bearer` JWT (RFC 7519, EdDSA): signed by the account's active push
 * key, `kid` its JWKS id; bound to the destination (`aud`), the task and the body's SHA-256.
 */
export function pushJwt(input: {
  kid: string;
  privateKey: Uint8Array;
  url: string;
  taskId: string;
  body: string;
  now: Date;
}): string {
  const iat = Math.floor(input.now.getTime() / 1000);
  const header = { alg: "EdDSA", typ: "JWT", kid: input.kid };
  const claims = {
    iss: env().publicUrl,
    aud: input.url,
    iat,
    exp: iat + JWT_TTL_SECONDS,
    jti: randomUUID(),
    task_id: input.taskId,
    request_body_sha256: createHash("sha256").update(input.body, "utf8").digest("hex"),
  };
  const signingInput = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = signBytes(signingInput, { alg: "ed25519", privateKey: input.privateKey });
  return `${signingInput}.${b64url(signature)}`;
}

async function claim(id: string, now: Date): Promise<boolean> {
  const res = await db().a2aPushConfig.updateMany({
    where: {
      id,
      finishedAt: null,
      nextAttemptAt: { lte: new Date(now.getTime() + 250) },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
    },
    data: { leaseUntil: new Date(now.getTime() + LEASE_MS) },
  });
  return res.count === 1;
}

/** One attempt at one config: the task as it is now, to its URL. */
async function attempt(configRowId: string): Promise<void> {
  const startedAt = clock.now();
  if (!(await claim(configRowId, startedAt))) return;
  const cfg = await db().a2aPushConfig.findUniqueOrThrow({ where: { id: configRowId } });
  const message = await loadMessage(cfg.messageId);
  if (!message || message.status === cfg.pushedStatus) {
    await db().a2aPushConfig.update({ where: { id: cfg.id }, data: { leaseUntil: null } });
    return;
  }
  const status = message.status;
  const terminal = status !== "open";
  const binding = await findCallbackBinding(message.agentRowId, cfg.url, undefined);
  let error: string | null = null;
  let verdict: "delivered" | "retry" | "failed";
  if (!binding) {
    error = "binding_revoked";
    verdict = "failed";
  } else if (!transportAllowed(cfg.url)) {
    error = "refused_url";
    verdict = "failed";
  } else {
    const task = taskOf(messageBody(message), await responseSigner(message.accountId));
    const body = JSON.stringify(StreamResponse.toJSON({ payload: { $case: "task", value: task } }));
    const key = await accountSigningKey(message.accountId);
    const jwt = pushJwt({
      kid: key.kid,
      privateKey: key.privateKey,
      url: cfg.url,
      taskId: message.id,
      body,
      now: clock.now(),
    });
    const headers: Record<string, string> = { authorization: `Bearer ${jwt}` };
    if (cfg.token) headers["x-a2a-notification-token"] = cfg.token;
    const result = await postBytes(cfg.url, Buffer.from(body, "utf8"), A2A_CONTENT_TYPE, {
      headers,
      timeoutMs: deliveryPolicy().timeoutMs,
      allowLoopback: env().MA2H_DEV_MODE ? devCallbackAllowlist() : new Set(),
    });
    if (result.ok) {
      verdict = verdictForStatus(result.status);
      if (verdict !== "delivered") error = `http_${result.status}`;
    } else {
      error = result.errorClass;
      verdict = result.errorClass === "refused_address" || result.errorClass === "refused_url" ? "failed" : "retry";
    }
  }
  const now = clock.now();
  const tries = cfg.attempts + 1;
  const retryAt = verdict === "retry" ? nextAttemptAt(deliveryPolicy().retry, cfg.cycleStartedAt, now, tries) : null;
  // Delivered, or given up: this status is done with (a later status starts a fresh cycle); a
  // terminal status ends the config. Only a retry keeps the status pending.
  const done = retryAt === null;
  await db().a2aPushConfig.update({
    where: { id: cfg.id },
    data: done
      ? {
          pushedStatus: status,
          attempts: 0,
          cycleStartedAt: now,
          nextAttemptAt: now,
          leaseUntil: null,
          lastError: error,
          finishedAt: terminal || error === "binding_revoked" ? now : null,
        }
      : { attempts: tries, nextAttemptAt: retryAt, leaseUntil: null, lastError: error },
  });
  log.info("a2a push attempt", { config_id: cfg.id, task_id: message.id, status, outcome: error ?? "delivered" });
}

/**
 * Pushes every config whose task changed since its last push and that is due (all of them, or
 * those of one message when a terminal NOTIFY named it). Returns how many were attempted.
 */
export async function pushDueA2a(messageId?: string): Promise<number> {
  const due = await findDueA2aPushConfigs(new Date(clock.now().getTime() + 250), messageId ?? null, 200);
  for (const id of due) {
    try {
      await attempt(id);
    } catch (err) {
      log.warn("a2a push attempt failed; the sweep retries it", { config_id: id, error_name: (err as Error).name });
    }
  }
  return due.length;
}
