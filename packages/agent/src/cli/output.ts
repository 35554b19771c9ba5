/**
 * Where the command writes: results on stdout (a bare value, one JSON document, or JSON lines),
 * everything else on stderr — progress notes, and an error as exactly one line `ma2h: <code>:
 * <message>` where <code> is the §8.5 code of a Hub error, or one of ours for local failures.
 */
import { CapabilityError, Ma2hError, WaitTimeoutError } from "../errors";
import { HubKeysError } from "../keys";
import { StateIntegrityError } from "../state";
import { VerificationError } from "../verify-push";
import { UsageError } from "./args";
import { EXIT, type ExitCode } from "./exit-codes";

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** A progress or outcome note for a person at the terminal; never parsed by scripts. */
export function note(text: string): void {
  process.stderr.write(`ma2h: ${text}\n`);
}

/** The one stderr line for a failure: `ma2h: <code>: <message>` (no newlines inside). */
export function printError(code: string, message: string): void {
  process.stderr.write(`ma2h: ${code}: ${message.replace(/\s*\n\s*/gu, " ")}\n`);
}

/** A failure that already knows its exit code and stderr code (e.g. a refused state). */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: ExitCode,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "CliFailure";
  }
}

/** Maps anything a command threw to its exit code and stderr code. */
export function classify(err: unknown): { exit: ExitCode; code: string; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof CliFailure) return { exit: err.exitCode, code: err.code, message };
  if (err instanceof UsageError) return { exit: EXIT.usage, code: "usage_error", message };
  if (err instanceof WaitTimeoutError) return { exit: EXIT.stillOpen, code: "still_open", message };
  if (err instanceof VerificationError) {
    const why = message.includes(err.reason) ? message : `${err.reason}: ${message}`;
    return err.reason === "replayed"
      ? { exit: EXIT.replayed, code: "replayed", message: why }
      : { exit: EXIT.refused, code: "verification_failed", message: why };
  }
  if (err instanceof StateIntegrityError) return { exit: EXIT.refused, code: "state_integrity", message };
  // The Hub's keys could not be fetched: nothing was refused as forged; the Hub is not reachable.
  if (err instanceof HubKeysError) return { exit: EXIT.hub, code: "keys_unavailable", message };
  if (err instanceof CapabilityError) return { exit: EXIT.hub, code: "capability", message: strip(err, message) };
  // Every other SDK error is a Hub answer (its §8.5 code, after the unknown-code fallback) or a
  // transport failure (network_error, unavailable).
  if (err instanceof Ma2hError) return { exit: EXIT.hub, code: err.code, message: strip(err, message) };
  return { exit: EXIT.hub, code: "internal", message };
}

/** The SDK's messages start with their code; the line carries it once. */
function strip(err: Ma2hError, message: string): string {
  return message.startsWith(`${err.code}: `) ? message.slice(err.code.length + 2) : message;
}
