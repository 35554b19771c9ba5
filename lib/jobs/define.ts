/**
 * One job definition: the contract (queue, name, payload schema — lib/queue/jobs.ts, shared with the
 * enqueue side) bound to its handler. The handler gets the payload already parsed by the schema.
 */
import type { z } from "zod";
import type { JobContract } from "../queue/jobs";

export interface JobDefinition {
  contract: JobContract<z.ZodType>;
  /** Parallel jobs per worker process. */
  concurrency: number;
  handle(data: unknown): Promise<void>;
}

export function defineJob<S extends z.ZodType>(
  contract: JobContract<S>,
  concurrency: number,
  handler: (payload: z.infer<S>) => Promise<void>,
): JobDefinition {
  return { contract, concurrency, handle: (data) => handler(contract.schema.parse(data)) };
}
