/**
 * What a chat post (a Slack channel post, a Teams card) does after a failed send: a transient failure
 * is retried with exponential backoff until the notification retry policy's attempts run out (the
 * row back to `pending`, the job re-enqueued at its time); anything else is given up (`failed`),
 * its error class kept. `update` writes the post's own table, under the caller's lease.
 */
import { notifyRetryPolicy } from "../env";
import { enqueueNotify } from "../queue/enqueue";

export interface PostFailure {
  transient: boolean;
  errorClass: string;
}

type PostUpdate =
  | { status: "pending"; nextAttemptAt: Date; leaseUntil: null; lastErrorClass: string; updatedAt: Date }
  | { status: "failed"; leaseUntil: null; lastErrorClass: string; updatedAt: Date };

export async function retryOrGiveUp(o: {
  messageId: string;
  attempts: number;
  failure: PostFailure;
  at: Date;
  /** The job key's prefix of a retry (`slack-retry`, `teams-retry`), numbered by attempt. */
  retryKey: string;
  update: (data: PostUpdate) => Promise<unknown>;
}): Promise<void> {
  const policy = notifyRetryPolicy();
  const { errorClass } = o.failure;
  if (o.failure.transient && o.attempts < policy.maxAttempts) {
    const nextAt = new Date(o.at.getTime() + policy.baseMs * 2 ** (o.attempts - 1));
    await o.update({
      status: "pending",
      nextAttemptAt: nextAt,
      leaseUntil: null,
      lastErrorClass: errorClass,
      updatedAt: o.at,
    });
    await enqueueNotify(o.messageId, `${o.retryKey}-${o.attempts + 1}`, nextAt);
  } else {
    await o.update({ status: "failed", leaseUntil: null, lastErrorClass: errorClass, updatedAt: o.at });
  }
}
