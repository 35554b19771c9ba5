/**
 * A small strict argument parser for the `ma2h` command. Strict because a CI step with a misspelt
 * flag must fail loudly (exit 2) rather than ask a person something other than what was meant.
 * Flags: `--name value`, `--name=value`, boolean `--name`, repeatable list flags; `--` ends the flags.
 */

export type FlagKind = "string" | "boolean" | "list";

export interface FlagSpec {
  kind: FlagKind;
  /** The placeholder in the help text, e.g. "FILE". */
  value?: string;
  help: string;
}

export interface CommandSpec {
  /** The full command as typed, e.g. "ask confirm". */
  name: string;
  summary: string;
  /** Positional arguments, in order. */
  positionals: Array<{ name: string; required: boolean }>;
  flags: Record<string, FlagSpec>;
  /** Extra help lines (examples, notes). */
  notes?: string[];
}

export interface Parsed {
  positionals: string[];
  strings: Record<string, string>;
  booleans: Record<string, boolean>;
  lists: Record<string, string[]>;
  help: boolean;
}

/** A command line that cannot be run as written (exit 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export function parseArgs(argv: readonly string[], spec: CommandSpec): Parsed {
  const out: Parsed = { positionals: [], strings: {}, booleans: {}, lists: {}, help: false };
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (onlyPositionals || !arg.startsWith("-") || arg === "-") {
      out.positionals.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyPositionals = true;
      continue;
    }
    if (arg === "--help" || arg === "-h") {
      out.help = true;
      continue;
    }
    if (!arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const flag = Object.hasOwn(spec.flags, name) ? spec.flags[name] : undefined;
    if (!flag) throw new UsageError(`unknown option --${name} for "ma2h ${spec.name}"`);
    if (flag.kind === "boolean") {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      out.booleans[name] = true;
      continue;
    }
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("--") && next !== "--"))
        throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    if (flag.kind === "list") out.lists[name] = [...(out.lists[name] ?? []), value];
    else {
      if (name in out.strings) throw new UsageError(`--${name} given twice`);
      out.strings[name] = value;
    }
  }
  if (out.help) return out;
  const required = spec.positionals.filter((p) => p.required).length;
  if (out.positionals.length < required) {
    const missing = spec.positionals[out.positionals.length]?.name ?? "argument";
    throw new UsageError(`missing <${missing}>`);
  }
  if (out.positionals.length > spec.positionals.length)
    throw new UsageError(`unexpected argument "${out.positionals[spec.positionals.length]}"`);
  return out;
}

/** The `--help` text of one command. */
export function helpText(spec: CommandSpec): string {
  const args = spec.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`)).join(" ");
  const lines = [`usage: ma2h ${spec.name}${args ? ` ${args}` : ""} [options]`, "", spec.summary, "", "options:"];
  const names = Object.keys(spec.flags).sort();
  const left = (n: string) => {
    const f = spec.flags[n] as FlagSpec;
    return `--${n}${f.kind === "boolean" ? "" : ` ${f.value ?? "VALUE"}`}${f.kind === "list" ? " (repeatable)" : ""}`;
  };
  const width = Math.max(...names.map((n) => left(n).length), 10);
  for (const n of names) lines.push(`  ${left(n).padEnd(width)}  ${(spec.flags[n] as FlagSpec).help}`);
  lines.push(`  ${"--help".padEnd(width)}  this text`);
  if (spec.notes?.length) lines.push("", ...spec.notes);
  return `${lines.join("\n")}\n`;
}
