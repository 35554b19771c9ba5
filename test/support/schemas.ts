/**
 * The official v0.6 JSON Schemas and conformance vectors, read in place from ../shared/ma2h (never
 * copied into the repo), validated with Ajv 2020. Missing files fail loudly.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { repoRoot } from "./hub";

export const shared = resolve(repoRoot, "../shared/ma2h");
const schemaDir = join(shared, "schema/v0.6");
const vectorDir = join(shared, "conformance/vectors");
if (!existsSync(schemaDir) || !existsSync(vectorDir)) {
  throw new Error(`MA2H protocol files not found at ${shared}: tests read them from ../shared/ma2h`);
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const file of readdirSync(schemaDir).filter((f) => f.endsWith(".schema.json"))) {
  ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, file), "utf8")));
}

/** Errors of `data` against an official schema (by file name), [] when valid. */
export function validateOfficial(file: string, data: unknown): string[] {
  const validate = ajv.getSchema(`https://ma2h.org/schema/v0.6/${file}`);
  if (!validate) throw new Error(`no schema ${file}`);
  return validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

export interface Vector {
  id: string;
  target?: string;
  expect?: "valid" | "invalid";
  input?: unknown;
}

/** A conformance vector by id prefix, e.g. "sv-002". */
export function loadVector(prefix: string): Vector {
  const file = readdirSync(vectorDir).find((f) => f.startsWith(`${prefix}-`));
  if (!file) throw new Error(`no vector ${prefix}`);
  return JSON.parse(readFileSync(join(vectorDir, file), "utf8")) as Vector;
}
