/**
 * Differential check of the zod mirrors against the official v0.6 JSON Schemas (Ajv 2020 +
 * ajv-formats): thousands of documents — the spec's examples, the vectors' inputs and systematic
 * mutations of them hitting every conditional — must get the same valid/invalid verdict from both.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ackSchema } from "./ack";
import { capabilitySchema } from "./capability";
import { getMessageSchema } from "./get-message";
import { inboundDirectiveSchema } from "./inbound-message";
import { messageSchema } from "./message";
import { presenceSchema } from "./presence";
import { resolveRequestSchema } from "./resolve-request";
import { responseSchema } from "./response";
import { submitAckSchema } from "./submit-ack";
import {
  ackDocs,
  capabilityDocs,
  directiveDocs,
  getMessageDocs,
  messageDocs,
  presenceDocs,
  resolveDocs,
  responseDocs,
  submitAckDocs,
} from "./schema-parity.corpus";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const shared = path.resolve(repoRoot, "../shared/ma2h");
if (!existsSync(shared)) throw new Error(`MA2H spec folder missing: ${shared} (tests read it in place)`);

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, "utf8"));
const schemaDir = path.join(shared, "schema/v0.6");
const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
for (const f of readdirSync(schemaDir).filter((n) => n.endsWith(".schema.json")))
  ajv.addSchema(readJson(path.join(schemaDir, f)) as object);

const examples = readdirSync(path.join(shared, "examples"))
  .filter((f) => f.endsWith(".json"))
  .map((f) => readJson(path.join(shared, "examples", f)) as Record<string, unknown>);
const vectorInputs = (target: string) =>
  readdirSync(path.join(shared, "conformance/vectors"))
    .filter((f) => f.startsWith("sv-"))
    .map(
      (f) =>
        readJson(path.join(shared, "conformance/vectors", f)) as { target: string; input: Record<string, unknown> },
    )
    .filter((v) => v.target.replace(/^v0\.[56]\//, "") === target)
    .map((v) => v.input);

function compare(target: string, schema: z.ZodType, docs: unknown[]) {
  const validate = ajv.getSchema(`https://ma2h.org/schema/v0.6/${target}`);
  if (!validate) throw new Error(`schema ${target} not loaded`);
  const mismatches: string[] = [];
  let valid = 0;
  for (const doc of docs) {
    const official = validate(doc) === true;
    if (official) valid++;
    if (schema.safeParse(doc).success !== official)
      mismatches.push(`${official ? "valid" : "invalid"} per ajv: ${JSON.stringify(doc)}`);
  }
  return { mismatches: mismatches.slice(0, 5), mismatchCount: mismatches.length, valid, total: docs.length };
}

describe("zod mirrors agree with the official v0.6 schemas", () => {
  it("message", () => {
    const bases = [
      ...examples.filter((e) => ["notify", "ask", "task"].includes(e.type as string)),
      ...vectorInputs("message.schema.json"),
    ];
    const r = compare("message.schema.json", messageSchema, messageDocs(bases));
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(200);
    expect(r.total - r.valid).toBeGreaterThan(200);
  });

  it("response", () => {
    const bases = [
      ...examples.filter((e) => "in_reply_to" in e && "resolution" in e),
      ...vectorInputs("response.schema.json"),
    ];
    const r = compare("response.schema.json", responseSchema, responseDocs(bases));
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(20);
    expect(r.total - r.valid).toBeGreaterThan(20);
  });

  it("submit-ack", () => {
    const r = compare("submit-ack.schema.json", submitAckSchema, submitAckDocs());
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(20);
    expect(r.total - r.valid).toBeGreaterThan(20);
  });

  it("get-message", () => {
    const r = compare("get-message.schema.json", getMessageSchema, getMessageDocs());
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(50);
    expect(r.total - r.valid).toBeGreaterThan(50);
  });

  it("capability", () => {
    const r = compare(
      "capability.schema.json",
      capabilitySchema,
      capabilityDocs(vectorInputs("capability.schema.json")),
    );
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(10);
    expect(r.total - r.valid).toBeGreaterThan(10);
  });

  it("inbound-message (directive branch)", () => {
    const bases = [...examples.filter((e) => e.type === "directive"), ...vectorInputs("inbound-message.schema.json")];
    const r = compare("inbound-message.schema.json", inboundDirectiveSchema, directiveDocs(bases));
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(100);
    expect(r.total - r.valid).toBeGreaterThan(100);
  });

  it("ack", () => {
    const r = compare("ack.schema.json", ackSchema, ackDocs(vectorInputs("ack.schema.json")));
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(30);
    expect(r.total - r.valid).toBeGreaterThan(30);
  });

  it("presence", () => {
    const r = compare("presence.schema.json", presenceSchema, presenceDocs());
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(8);
    expect(r.total - r.valid).toBeGreaterThan(100);
  });

  it("resolve-request", () => {
    const r = compare("resolve-request.schema.json", resolveRequestSchema, resolveDocs());
    expect(r.mismatches).toEqual([]);
    expect(r.valid).toBeGreaterThan(10);
    expect(r.total - r.valid).toBeGreaterThan(10);
  });
});
