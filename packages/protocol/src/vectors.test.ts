/**
 * Every public schema-validation vector (`sv-*`), read in place from ../shared/ma2h: each is checked
 * with the official schemas (Ajv, Draft 2020-12) AND with our zod mirror, and both must agree with
 * the vector's `expect`. Vectors for schemas (or union branches) this layer does not mirror yet are
 * listed explicitly in DEFERRED with the reason — a new vector that is neither covered nor listed
 * fails the suite, and so does a listed one that no longer exists.
 */
// covers: packages/protocol/src/message.ts, packages/protocol/src/response.ts, packages/protocol/src/get-message.ts, packages/protocol/src/inbound-message.ts, packages/protocol/src/session.ts, packages/protocol/src/capability.ts
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { officialAjv, readJson, vectorDir as vectorsDir, vectorFiles } from "../../../test/support/spec";
import type { z } from "zod";
import { ackSchema } from "./ack";
import { capabilitySchema } from "./capability";
import { getMessageSchema } from "./get-message";
import { inboundEntrySchema } from "./inbound-message";
import { messageSchema } from "./message";
import { presenceSchema } from "./presence";
import { resolveRequestSchema } from "./resolve-request";
import { responseSchema } from "./response";
import { sessionListSchema, sessionSchema } from "./session";
import { submitAckSchema } from "./submit-ack";

const ZOD: Record<string, z.ZodType> = {
  "message.schema.json": messageSchema,
  "submit-ack.schema.json": submitAckSchema,
  "get-message.schema.json": getMessageSchema,
  "response.schema.json": responseSchema,
  "resolve-request.schema.json": resolveRequestSchema,
  "capability.schema.json": capabilitySchema,
  "inbound-message.schema.json": inboundEntrySchema,
  "ack.schema.json": ackSchema,
  "presence.schema.json": presenceSchema,
  "session.schema.json": sessionSchema,
  "session.schema.json#/$defs/sessionList": sessionListSchema,
};

/**
 * Vectors not run against a zod mirror, each with its reason, so none is skipped silently. Empty:
 * every schema the vectors target is mirrored.
 */
const DEFERRED: Record<string, string> = {};

interface Vector {
  id: string;
  class: string;
  target: string;
  input: unknown;
  expect: "valid" | "invalid";
}

const files = vectorFiles(/^sv-.*\.json$/);
const vectors: Vector[] = files.map((f) => readJson(`${vectorsDir}/${f}`) as Vector);
/** Bare, `v0.5/` and `v0.6/` targets alike run against schema/v0.6 (all 76 agree there). */
const schemaFile = (target: string) => target.replace(/^v0\.[56]\//, "");
const covered = vectors.filter((v) => schemaFile(v.target) in ZOD && !(v.id in DEFERRED));

const ajv = officialAjv({ allErrors: true });

describe("sv-* schema vectors", () => {
  it("the vectors folder exists and holds more than 60 sv vectors", () => {
    expect(existsSync(vectorsDir), vectorsDir).toBe(true);
    expect(files.length).toBeGreaterThan(60);
    expect(vectors.every((v) => v.class === "schema-validation")).toBe(true);
  });

  it("every vector is either covered here or explicitly deferred", () => {
    const uncovered = vectors
      .filter((v) => !covered.includes(v))
      .map((v) => v.id)
      .sort();
    expect(uncovered).toEqual(Object.keys(DEFERRED).sort());
    expect(covered.length + uncovered.length).toBe(vectors.length);
  });

  it.each(covered.map((v) => [v.id, v] as const))("%s", (_id, v) => {
    const want = v.expect === "valid";
    const validate = ajv.getSchema(`https://ma2h.org/schema/v0.6/${schemaFile(v.target)}`);
    if (!validate) throw new Error(`schema not loaded for target ${v.target}`);
    expect(validate(v.input), `ajv: ${JSON.stringify(validate.errors)}`).toBe(want);
    const zod = ZOD[schemaFile(v.target)]!.safeParse(v.input);
    expect(zod.success, `zod: ${zod.error ? JSON.stringify(zod.error.issues) : "valid"}`).toBe(want);
  });
});
