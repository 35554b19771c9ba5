/**
 * The MA2H protocol files the tests check against — the official v0.6 JSON Schemas, examples and
 * conformance vectors — read in place from ../shared/ma2h (never copied into the repo), and the Ajv
 * 2020 + ajv-formats setup, written once for lib/ and test/. Missing files fail loudly. No
 * test-runner imports.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv2020, { type Options } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { repoRoot } from "./hub";

export const shared = resolve(repoRoot, "../shared/ma2h");
export const schemaDir = join(shared, "schema/v0.6");
export const vectorDir = join(shared, "conformance/vectors");
export const exampleDir = join(shared, "examples");
/** Fails loudly when the protocol files are missing (checked on first use, so createAjv needs none). */
function ensure(): void {
  if (!existsSync(schemaDir) || !existsSync(vectorDir)) {
    throw new Error(`MA2H protocol files not found at ${shared}: tests read them from ../shared/ma2h`);
  }
}

/** A fixture: free-form JSON, read field by field. */
export type Json = Record<string, any>;

export const readJson = (file: string): unknown => JSON.parse(readFileSync(file, "utf8"));

/** A conformance vector by its full name, e.g. "dp-001-signature". */
export function vector(name: string): Json {
  ensure();
  const file = join(vectorDir, `${name}.json`);
  if (!existsSync(file)) throw new Error(`fixture missing: ${file}`);
  return readJson(file) as Json;
}

/** The vector file names (sorted) whose name matches `pattern`. */
export function vectorFiles(pattern: RegExp = /\.json$/): string[] {
  ensure();
  return readdirSync(vectorDir)
    .filter((f) => pattern.test(f))
    .sort();
}

export interface Vector {
  id: string;
  class?: string;
  target?: string;
  expect?: "valid" | "invalid";
  input?: unknown;
}

/** A conformance vector by id prefix, e.g. "sv-002". */
export function loadVector(prefix: string): Vector {
  ensure();
  const file = readdirSync(vectorDir).find((f) => f.startsWith(`${prefix}-`));
  if (!file) throw new Error(`no vector ${prefix}`);
  return readJson(join(vectorDir, file)) as Vector;
}

/** The spec's example documents. */
export function examples(): Record<string, unknown>[] {
  ensure();
  return readdirSync(exampleDir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => readJson(join(exampleDir, f)) as Record<string, unknown>);
}

/** An Ajv for Draft 2020-12 with ajv-formats (non-strict: the official schemas use annotations Ajv does not know). */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

/** An Ajv with every official v0.6 schema registered under its `$id`. */
export function officialAjv(options: Options = {}): Ajv2020 {
  ensure();
  const ajv = createAjv(options);
  for (const f of readdirSync(schemaDir).filter((n) => n.endsWith(".schema.json")))
    ajv.addSchema(readJson(join(schemaDir, f)) as object);
  return ajv;
}

/** The compiled official schema of a file name, e.g. "message.schema.json". */
export function officialSchema(ajv: Ajv2020, file: string) {
  const validate = ajv.getSchema(`https://ma2h.org/schema/v0.6/${file}`);
  if (!validate) throw new Error(`no schema ${file}`);
  return validate;
}

let reporting: Ajv2020 | undefined;
/** Errors of `data` against an official schema (by file name), [] when valid. */
export function validateOfficial(file: string, data: unknown): string[] {
  reporting ??= officialAjv({ allErrors: true });
  const validate = officialSchema(reporting, file);
  return validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
