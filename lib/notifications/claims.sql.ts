/**
 * The statements behind lib/notifications/claims.ts, on the pool: the outcomes of a set of claimed
 * rows recorded by one statement — each row's new state, only where the claim still holds it
 * (status `sending`, its batch, its attempt number), and an attempt row for each one so recorded
 * (a cancel is not an attempt: nothing was sent).
 */
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

/** One claimed row's outcome. */
export interface RowOutcome {
  id: string;
  batchId: string | null;
  attempts: number;
  status: "sent" | "pending" | "failed" | "cancelled";
  errorClass: string | null;
  responseCode: number | null;
  /** When a row made `pending` again is next due; null otherwise. */
  nextAt: Date | null;
}

export const finishRows = statement(
  "claimed notification rows' outcomes, with their attempt rows",
  (outcomes: RowOutcome[], now: Date) => Prisma.sql`WITH v AS (
             SELECT * FROM unnest(${outcomes.map((o) => o.id)}::text[], ${outcomes.map((o) => o.batchId)}::text[],
                                  ${outcomes.map((o) => o.attempts)}::int[], ${outcomes.map((o) => o.status)}::text[],
                                  ${outcomes.map((o) => o.errorClass)}::text[], ${outcomes.map((o) => o.responseCode)}::int[],
                                  ${outcomes.map((o) => o.nextAt?.toISOString() ?? null)}::timestamptz[])
                    AS v(id, batch_id, attempts, status, error_class, response_code, next_at)),
           u AS (
             UPDATE notifications n
                SET status = v.status, lease_until = NULL, updated_at = ${now}::timestamptz, last_error_class = v.error_class,
                    sent_at = CASE WHEN v.status = 'sent' THEN ${now}::timestamptz ELSE n.sent_at END,
                    next_attempt_at = CASE WHEN v.status = 'pending' THEN v.next_at ELSE n.next_attempt_at END
               FROM v
              WHERE n.id = v.id AND n.status = 'sending' AND n.batch_id IS NOT DISTINCT FROM v.batch_id
                AND n.attempts = v.attempts
             RETURNING n.id, n.attempts, n.channel, n.user_id, v.status, v.error_class, v.response_code),
           a AS (
             INSERT INTO notification_attempts (notification_id, attempt, channel, user_id, outcome, error_class,
                                                response_code, at)
             SELECT id, attempts, channel, user_id, CASE WHEN status = 'pending' THEN 'retry' ELSE status END,
                    error_class, response_code, ${now}::timestamptz
               FROM u WHERE status <> 'cancelled'
             RETURNING 1)
      SELECT (SELECT count(*) FROM u)::int AS recorded, (SELECT count(*) FROM a)::int AS attempts`,
  [
    [
      [
        {
          id: "ntf_sample",
          batchId: "ntf_batch",
          attempts: 1,
          status: "sent",
          errorClass: null,
          responseCode: 250,
          nextAt: null,
        },
      ],
      new Date(0),
    ],
  ],
);

/** Records the outcomes; returns how many rows the claim still held (and so were recorded). */
export async function recordOutcomes(outcomes: RowOutcome[], now: Date): Promise<number> {
  if (outcomes.length === 0) return 0;
  const [r] = await statementRows<{ recorded: number }>(finishRows.sql(outcomes, now));
  return r?.recorded ?? 0;
}
