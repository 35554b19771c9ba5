/**
 * The container files read as the tests need them (test/container.test.ts, test/compose-twin.test.ts,
 * test/helm-chart.test.ts): the Dockerfile's instructions by stage, compose.yaml with its merge keys
 * and `${VAR}` interpolation, the entry point's commands (deploy/entrypoint.sh), the names
 * .env.example documents and the names the Hub's code reads. Pure file reads.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { repoRoot } from "./hub";

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");

export interface Instruction {
  op: string;
  args: string;
}
export interface Stage {
  from: string;
  name: string | null;
  instructions: Instruction[];
}

/** The Dockerfile's global ARGs and stages; continuation lines joined, comments dropped. */
export function dockerfile(text = read("Dockerfile")): { args: Record<string, string>; stages: Stage[] } {
  const lines: string[] = [];
  let current = "";
  for (const raw of text.split("\n")) {
    if (/^\s*#/.test(raw)) continue;
    const line = raw.replace(/\s+$/, "");
    if (line.endsWith("\\")) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    if (current.trim()) lines.push(current.trim());
    current = "";
  }
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const m = /^([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`Dockerfile: cannot read "${line}"`);
    const op = m[1]!.toUpperCase();
    const rest = m[2]!;
    if (op === "FROM") {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!f) throw new Error(`Dockerfile: FROM ${rest}`);
      stages.push({ from: f[1]!, name: f[2] ?? null, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) {
      if (op !== "ARG") throw new Error(`Dockerfile: ${op} before the first FROM`);
      const [k, v = ""] = rest.split("=");
      args[k!] = v.replace(/^"|"$/g, "");
      continue;
    }
    stage.instructions.push({ op, args: rest });
  }
  return { args, stages };
}

/** `KEY=value KEY2="value"` (ENV's form; the legacy `ENV KEY value` too). */
export function envPairs(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!args.includes("=")) {
    const [k, ...v] = args.split(/\s+/);
    out[k!] = v.join(" ");
    return out;
  }
  for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g))
    out[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
  return out;
}

/** An exec-form (JSON array) instruction's words; a shell form is refused. */
export function execForm(args: string): string[] {
  const words = JSON.parse(args.replace(/^CMD\s+/, "")) as unknown;
  if (!Array.isArray(words) || !words.every((w) => typeof w === "string")) throw new Error(`not exec form: ${args}`);
  return words as string[];
}

/** compose.yaml, merge keys (`<<: *hub`) applied, nothing interpolated yet. */
export function compose(text = read("compose.yaml")): Record<string, any> {
  return parse(text, { merge: true }) as Record<string, any>;
}

/** Compose's `${VAR}`, `${VAR:?message}` and `${VAR:-default}` against `vars`; a missing `:?` throws. */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:\?|:-)([^}]*))?\}/g, (_all, name: string, op, arg) => {
    const v = vars[name];
    if (v !== undefined && v !== "") return v;
    if (op === ":?") throw new Error(`${name}: ${arg}`);
    if (op === ":-") return arg as string;
    return "";
  });
}

/** The variables a text interpolates (`${NAME…}`). */
export function interpolated(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

/** An env file (`KEY=value` lines, `#` comments): compose's env_file and .env.example alike. */
export function envFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, "$1");
  }
  return out;
}

/** Every name .env.example documents, set (`NAME=`) or shown commented out (`# NAME=`). */
export function envExampleNames(): Set<string> {
  return new Set([...read(".env.example").matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
}

function sources(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (name === "generated" || name === "node_modules") return [];
    if (statSync(join(repoRoot, path)).isDirectory()) return sources(path);
    return /\.(ts|tsx|mjs|js)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/**
 * The names the Hub's code reads: lib/env.ts's schema and every `process.env.NAME` /
 * `process.env["NAME"]` in lib/, server/, workers/, cli/, bin/, app/ and deploy/ (outside tests).
 */
export function namesReadByCode(): Set<string> {
  const names = new Set<string>();
  for (const m of read("lib/env.ts").matchAll(/^\s{2}([A-Z][A-Z0-9_]*):/gm)) names.add(m[1]!);
  for (const file of ["lib", "server", "workers", "cli", "bin", "app", "deploy"].flatMap(sources)) {
    const text = read(file);
    for (const m of text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*"([A-Z][A-Z0-9_]*)"\s*\])/g))
      names.add((m[1] ?? m[2])!);
  }
  return names;
}

/** deploy/entrypoint.sh's commands: each `name) exec <command line> "$@" ;;` arm, as words. */
export function entrypointCommands(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of read("deploy/entrypoint.sh").matchAll(/^\s*([a-z0-9-]+)\)\s+exec\s+(.*?)\s+"\$@"\s*;;/gm))
    out[m[1]!] = m[2]!.split(/\s+/);
  return out;
}

/** package.json's scripts. */
export function npmScripts(): Record<string, string> {
  return (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
}
