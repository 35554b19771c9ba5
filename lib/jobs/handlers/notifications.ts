/**
 * The `notifications.fanout` job: fan one new ask/task out to its recipients and send each
 * due notification (lib/notifications/fanout.ts). Enqueued by the worker when it hears the submit's
 * NOTIFY (lib/jobs/wake.ts), again for each retry, and re-derived from PostgreSQL by the
 * notification sweep — a lost job loses nothing.
 */
import { processNotifications } from "../../notifications/fanout";
import { NOTIFY_JOB } from "../../queue/jobs";
import { defineJob } from "../define";

export const notifyJob = defineJob(NOTIFY_JOB, 8, async ({ messageId }) => {
  await processNotifications(messageId);
});
