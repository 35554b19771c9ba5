/**
 * The start log line that says which code a process runs (bin/launcher.mjs): the compiled bundle,
 * or the TypeScript sources through tsx and why (no build, or which sources changed since it). The
 * sources are several times slower to start and are not the layout that was built and measured, so
 * that case is a warning.
 */
import { type EntryName, runningCode } from "../bin/launcher.mjs";
import { log } from "../lib/log";

export function logRunningCode(entry: EntryName): void {
  const running = runningCode(entry);
  if (running.code === "bundle") log.info("running the compiled bundle", { entry });
  else
    log.warn("running the TypeScript sources through tsx; npm run build:node compiles them", {
      entry,
      reason: running.reason,
    });
}
