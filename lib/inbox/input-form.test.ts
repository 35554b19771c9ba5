import { describe, expect, it } from "vitest";
import { coerceInput } from "./input-form";
import { decodeCursor, encodeCursor, likePattern, parseFilters } from "./filters";
import type { FieldView } from "./view";

const field = (name: string, type: FieldView["type"], over: Partial<FieldView> = {}): FieldView => ({
  name,
  type,
  enum: null,
  choices: null,
  title: null,
  description: null,
  required: false,
  sensitive: false,
  hiddenDefault: false,
  default: null,
  minLength: null,
  maxLength: null,
  pattern: null,
  format: null,
  minimum: null,
  maximum: null,
  minItems: null,
  maxItems: null,
  ...over,
});
const FIELDS = [
  field("note", "string", { required: true }),
  field("n", "integer"),
  field("x", "number"),
  field("on", "boolean"),
  field("env", "string", { enum: ["staging", "prod"] }),
];

describe("coerceInput", () => {
  it("types raw form values from the flat schema", () => {
    expect(coerceInput(FIELDS, { note: "hi", n: "3", x: "1.5", on: true, env: "prod" })).toEqual({
      value: { note: "hi", n: 3, x: 1.5, on: true, env: "prod" },
    });
    expect(coerceInput(FIELDS, { note: "hi" })).toEqual({ value: { note: "hi", on: false } });
  });
  it("reports what is missing or wrong", () => {
    expect(coerceInput(FIELDS, {})).toEqual({ problem: "note is required" });
    expect(coerceInput(FIELDS, { note: "a", n: "1.5" })).toEqual({ problem: "n must be a whole number" });
    expect(coerceInput(FIELDS, { note: "a", x: "ten" })).toEqual({ problem: "x must be a number" });
    expect(coerceInput(FIELDS, { note: "a", env: "qa" })).toEqual({ problem: "env must be one of staging, prod" });
  });
});

describe("filters", () => {
  it("keeps known values only", () => {
    expect(parseFilters({ verb: "ask", status: "nope", priority: ["high", "low"], q: "  deploy ", agent: "" })).toEqual(
      { verb: "ask", priority: "high", q: "deploy" },
    );
  });
  it("round-trips cursors and ignores garbage", () => {
    const c = { g: 0 as const, r: 1, c: "2026-12-02T10:00:00.000Z", i: "msg_x" };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(decodeCursor("not-base64-json")).toBeNull();
    expect(decodeCursor(Buffer.from('{"g":0,"r":9}').toString("base64url"))).toBeNull();
  });
  it("escapes LIKE wildcards", () => {
    expect(likePattern("100%_a\\b")).toBe("%100\\%\\_a\\\\b%");
  });
});
