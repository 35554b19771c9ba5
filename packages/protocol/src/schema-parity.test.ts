/**
 * Differential check of the zod mirrors against the official v0.6 JSON Schemas (Ajv 2020 +
 * ajv-formats): thousands of documents — the spec's examples, the vectors' inputs and systematic
 * mutations of them hitting every conditional — must get the same valid/invalid verdict from both.
 */
// covers: packages/protocol/src/message.ts, packages/protocol/src/response.ts, packages/protocol/src/get-message.ts, packages/protocol/src/inbound-message.ts, packages/protocol/src/capability.ts, packages/protocol/src/wire.ts
import { describe, expect, it } from "vitest";
import { examples as specExamples, officialAjv, vector, vectorFiles } from "../../../test/support/spec";
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

const ajv = officialAjv();

const examples = specExamples();
const vectorInputs = (target: string) =>
  vectorFiles(/^sv-/)
    .map((f) => vector(f.replace(/\.json$/, "")) as { target: string; input: Record<string, unknown> })
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
