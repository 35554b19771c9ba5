/**
 * The two statements of one push attempt (lib/delivery/push-attempt.ts), on the pool: the claim,
 * which takes the lease and loads everything the attempt sends in the same statement, and the
 * outcome, which records the attempt, the obligation's new state and — on a 2xx — the §14.2
 * delivery stamp with its audit row, all in one statement, so they commit together or not at all.
 */
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { type DeliveryVia, STAMP_NOTIFY, stampDeliveredCtes } from "../messages/delivery-track.sql";
import type { MessageResolutionRow } from "../messages/row-read";
import type { MatchedBinding } from "../principals/callback-bindings";
import { MESSAGE_RESOLUTION_LIST } from "../messages/row-read.sql";
import { statement } from "../sql-statement";

/** How long a claimed attempt holds its obligation: far past any attempt's deadline. */
export const PUSH_LEASE_MS = 60_000;

/** An obligation due this close ahead is taken now: a timer that fires a little early is not a miss. */
const DUE_SLACK_MS = 250;

/** One of the agent's active callback bindings, with its sealed secrets, as the claim returns it. */
export type ClaimedBinding = MatchedBinding["row"] & { secrets: Array<{ ref: string; sealed: string }> };

/** The claimed obligation (`d_`), its message and resolution, and the agent's active bindings. */
export type ClaimedPush = MessageResolutionRow & {
  d_id: string;
  d_resolutionId: string;
  d_callbackUrl: string;
  d_attempts: number;
  d_cycleAttempts: number;
  d_cycleStartedAt: Date;
  d_nextAttemptAt: Date;
  bindings: ClaimedBinding[];
};

export const claimPushAttempt = statement(
  "claim a due push obligation for one attempt and load what the attempt sends",
  (deliveryId: string, now: Date) => Prisma.sql`
    WITH claimed AS (
      UPDATE push_deliveries SET lease_until = ${new Date(now.getTime() + PUSH_LEASE_MS)}::timestamptz
      WHERE id = ${deliveryId} AND status = 'pending'
        AND next_attempt_at <= ${new Date(now.getTime() + DUE_SLACK_MS)}::timestamptz
        AND (lease_until IS NULL OR lease_until < ${now}::timestamptz)
      RETURNING id, message_id, resolution_id, callback_url, attempts, cycle_attempts, cycle_started_at, next_attempt_at
    )
    SELECT c.id AS "d_id", c.resolution_id AS "d_resolutionId", c.callback_url AS "d_callbackUrl",
      c.attempts AS "d_attempts", c.cycle_attempts AS "d_cycleAttempts",
      c.cycle_started_at AS "d_cycleStartedAt", c.next_attempt_at AS "d_nextAttemptAt",
      ${MESSAGE_RESOLUTION_LIST},
      (SELECT coalesce(json_agg(json_build_object(
          'id', b.id, 'scheme', b.scheme, 'host', b.host, 'port', b.port, 'pathPrefix', b.path_prefix,
          'standardWebhooksSecret', b.standard_webhooks_secret_sealed,
          'secrets', (SELECT coalesce(json_agg(json_build_object('ref', s.ref, 'sealed', s.sealed)), '[]'::json)
                      FROM binding_secrets s WHERE s.binding_id = b.id)
        ) ORDER BY b.created_at, b.id), '[]'::json)
        FROM callback_bindings b WHERE b.agent_row_id = m.agent_row_id AND b.revoked_at IS NULL) AS "bindings"
    FROM claimed c JOIN messages m ON m.id = c.message_id LEFT JOIN resolutions r ON r.message_id = m.id`,
  [["pd_sample", new Date(0)]],
);

/** On the pool: the claimed obligation with everything its attempt sends, or null when not claimed. */
export async function runClaimPushAttempt(deliveryId: string, now: Date): Promise<ClaimedPush | null> {
  return (await statementRows<ClaimedPush>(claimPushAttempt.sql(deliveryId, now)))[0] ?? null;
}

/** What one attempt left behind: its log row and the obligation's new state. */
export interface PushOutcomeRow {
  deliveryId: string;
  /** The attempt's number over the obligation's whole life (push_attempts.attempt). */
  attempt: number;
  /** The attempt's number within its retry cycle. */
  cycleAttempts: number;
  startedAt: Date;
  now: Date;
  statusCode: number | null;
  latencyMs: number;
  errorClass: string | null;
  outcome: string;
  /** The obligation's status: `pending` again for a retry, else the outcome. */
  status: string;
  nextAttemptAt: Date;
  lastError: string | null;
  /** Set on a 2xx: the resolution to stamp delivered (first stamp wins, pull or push). */
  delivered: { resolutionId: string; via: DeliveryVia; actor: string } | null;
}

export const recordPushOutcome = statement(
  "record a push attempt, its obligation's new state and, on a 2xx, the delivery stamp",
  (o: PushOutcomeRow) => {
    const stamp = o.delivered
      ? Prisma.sql`, ${stampDeliveredCtes(o.delivered.resolutionId, o.now, o.delivered.via, o.delivered.actor)}`
      : Prisma.empty;
    // pg_notify returns void: the aggregate only makes the won stamp's NOTIFY run.
    const notified = o.delivered
      ? Prisma.sql`(SELECT string_agg(${STAMP_NOTIFY}::text, '') FROM audited)`
      : Prisma.sql`NULL::text`;
    return Prisma.sql`
      WITH attempt AS (
        INSERT INTO push_attempts (delivery_id, attempt, at, status_code, latency_ms, error_class, outcome)
        VALUES (${o.deliveryId}, ${o.attempt}::int, ${o.startedAt}::timestamptz, ${o.statusCode}::int,
                ${o.latencyMs}::int, ${o.errorClass}::text, ${o.outcome}::text)
      ), updated AS (
        UPDATE push_deliveries SET attempts = attempts + 1, cycle_attempts = ${o.cycleAttempts}::int,
          status = ${o.status}::text, next_attempt_at = ${o.nextAttemptAt}::timestamptz, lease_until = NULL,
          delivered_at = ${o.delivered ? o.now : null}::timestamptz, last_error = ${o.lastError}::text,
          updated_at = ${o.now}::timestamptz
        WHERE id = ${o.deliveryId}
        RETURNING attempts
      )${stamp}
      SELECT u.attempts, ${notified} AS notified FROM updated u`;
  },
  [[outcomeSample(null)], [outcomeSample({ resolutionId: "res_sample", via: "push", actor: "system:push" })]],
);

/** On the pool: records the outcome; the obligation's attempt count after it (undefined when the row is gone). */
export async function runRecordPushOutcome(o: PushOutcomeRow): Promise<number | undefined> {
  return (await statementRows<{ attempts: number }>(recordPushOutcome.sql(o)))[0]?.attempts;
}

function outcomeSample(delivered: PushOutcomeRow["delivered"]): PushOutcomeRow {
  return {
    deliveryId: "pd_sample",
    attempt: 1,
    cycleAttempts: 1,
    startedAt: new Date(0),
    now: new Date(0),
    statusCode: delivered ? 200 : null,
    latencyMs: 1,
    errorClass: delivered ? null : "timeout",
    outcome: delivered ? "delivered" : "retry",
    status: delivered ? "delivered" : "pending",
    nextAttemptAt: new Date(0),
    lastError: delivered ? null : "timeout",
    delivered,
  };
}
