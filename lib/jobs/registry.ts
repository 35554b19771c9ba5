/**
 * Every job the worker runs. Only workers/ imports this: the domain enqueues through the leaf
 * lib/queue/enqueue.ts and never sees a handler, so no domain module depends on the worker's side.
 */
import type { JobDefinition } from "./define";
import { expireJob } from "./handlers/expiry";
import { notifyJob } from "./handlers/notifications";
import { pushJob } from "./handlers/push";

export const JOBS: readonly JobDefinition[] = [expireJob, pushJob, notifyJob];
