/** What every `ma2h-hub` command is: parsed flags in, the documented JSON object plus a readable line out. */
import { HubError } from "@ma2h/protocol/errors";

export type Flags = Partial<Record<string, string>>;
/** The repeatable flags (`--sponsor a --sponsor b`), each in the order given; absent when not given. */
export type ListFlags = Partial<Record<string, string[]>>;

export interface Output {
  json: Record<string, unknown>;
  text: string;
  /** The process's exit code when not 0: a finding such as a broken audit chain is 1. */
  exitCode?: number;
  /** Where `text` goes without `--json` (default stdout): a refused file's problems are diagnostics. */
  textTo?: "stderr";
}

/** What a command may read besides its arguments: the run's stdin (a file named `-`). */
export interface CommandIo {
  /** All of stdin, as text; read once, when a command asks for it. */
  stdin(): Promise<string>;
}

export interface Command {
  usage: string;
  /** The positional arguments after the two command words; with `variadic`, the fewest. */
  args: number;
  /** The last argument may repeat (`group add <name> human:<handle>…`). */
  variadic?: boolean;
  run(args: string[], flags: Flags, lists: ListFlags, io: CommandIo): Promise<Output>;
}

/** A malformed command line: exit 2 with the usage. */
export function usageError(message: string): HubError {
  return new HubError("validation_error", message);
}
