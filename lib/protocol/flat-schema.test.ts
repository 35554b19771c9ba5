import { describe, expect, it } from "vitest";
import { HubError } from "./errors";
import { assertFlatSchema, sensitiveProperties, validateFlat } from "./flat-schema";

const schema = {
  type: "object",
  properties: {
    reason: { type: "string", title: "Reason", description: "why" },
    count: { type: "integer" },
    ratio: { type: "number" },
    notify: { type: "boolean" },
    env: { type: "string", enum: ["dev", "prod"] },
    api_key: { type: "string", "x-ma2h-sensitive": true },
    note: { type: "string", "x-ma2h-sensitive": false },
  },
  required: ["reason"],
};

function rejection(candidate: unknown): string {
  try {
    assertFlatSchema(candidate);
  } catch (err) {
    expect(err).toBeInstanceOf(HubError);
    expect((err as HubError).code).toBe("invalid_field");
    return (err as HubError).message;
  }
  throw new Error("expected invalid_field");
}

describe("assertFlatSchema (§5.2)", () => {
  it("accepts flat schemas", () => {
    expect(() => assertFlatSchema(schema)).not.toThrow();
    expect(() =>
      assertFlatSchema({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false }),
    ).not.toThrow();
    // v0.6 (§5.2): `type` may be absent, or a well-formed type array admitting an object.
    expect(() => assertFlatSchema({ properties: { a: { type: "string" } } })).not.toThrow();
    expect(() => assertFlatSchema({ type: ["object", "null"], properties: { a: { type: "string" } } })).not.toThrow();
    expect(() =>
      assertFlatSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { a: { type: "boolean", "x-ui": 1 } },
      }),
    ).not.toThrow();
  });

  it.each([
    ["not an object", []],
    ["wrong root type", { type: "array", properties: {} }],
    ["no properties", { type: "object" }],
    ["empty properties (v0.6)", { type: "object", properties: {} }],
    ["a scalar schema (v0.6)", { type: "string", properties: { a: { type: "string" } } }],
    ["a type array without object (v0.6)", { type: ["string", "number"], properties: { a: { type: "string" } } }],
    ["a malformed type array (v0.6)", { type: ["object", "object"], properties: { a: { type: "string" } } }],
    ["nested object", { type: "object", properties: { a: { type: "object", properties: {} } } }],
    ["array property", { type: "object", properties: { a: { type: "array", items: { type: "string" } } } }],
    ["$ref", { type: "object", properties: { a: { $ref: "#/$defs/x" } } }],
    ["combinator", { type: "object", properties: { a: { anyOf: [{ type: "string" }] } } }],
    ["root combinator", { type: "object", properties: { a: { type: "string" } }, oneOf: [] }],
    ["type list", { type: "object", properties: { a: { type: ["string", "null"] } } }],
    ["unenforced keyword", { type: "object", properties: { a: { type: "string", pattern: "^x" } } }],
    ["empty enum", { type: "object", properties: { a: { type: "string", enum: [] } } }],
    ["enum of the wrong type", { type: "object", properties: { a: { type: "integer", enum: [1, 2.5] } } }],
    ["required names an unknown property", { type: "object", properties: { a: { type: "string" } }, required: ["b"] }],
    ["required not an array", { type: "object", properties: { a: { type: "string" } }, required: "a" }],
    [
      "additionalProperties as schema",
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } },
    ],
    [
      "non-boolean sensitive flag",
      { type: "object", properties: { a: { type: "string", "x-ma2h-sensitive": "yes" } } },
    ],
  ])("rejects %s", (_name, candidate) => {
    expect(rejection(candidate)).toMatch(/^request\.schema/);
  });

  it("names the offending path", () => {
    expect(rejection({ type: "object", properties: { a: { type: "object" } } })).toContain(
      "request.schema.properties.a.type",
    );
  });
});

describe("validateFlat", () => {
  it("accepts a conforming object", () => {
    expect(
      validateFlat(schema, { reason: "r", count: 3, ratio: 0.5, notify: true, env: "dev", extra: [1] }),
    ).toBeNull();
  });

  it.each([
    ["a string", "r", "must be an object"],
    ["an array", [], "must be an object"],
    ["null", null, "must be an object"],
    ["missing required", {}, "reason: is required"],
    ["wrong type", { reason: 1 }, "reason: must be a string"],
    ["non-integer", { reason: "r", count: 1.5 }, "count: must be an integer"],
    ["boolean as number", { reason: "r", ratio: true }, "ratio: must be a number"],
    ["enum miss", { reason: "r", env: "staging" }, 'env: must be one of "dev", "prod"'],
  ])("rejects %s", (_name, value, message) => {
    expect(validateFlat(schema, value)).toBe(message);
  });

  it("respects additionalProperties: false", () => {
    const closed = { ...schema, additionalProperties: false };
    expect(validateFlat(closed, { reason: "r", extra: 1 })).toBe("extra: is not an allowed property");
    expect(validateFlat(closed, { reason: "r" })).toBeNull();
  });

  it("does not treat inherited names as declared properties", () => {
    expect(
      validateFlat(
        { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
        JSON.parse('{"toString":"x"}'),
      ),
    ).toBe("toString: is not an allowed property");
  });
});

describe("sensitiveProperties", () => {
  it("lists properties marked x-ma2h-sensitive: true", () => {
    expect(sensitiveProperties(schema)).toEqual(["api_key"]);
    expect(sensitiveProperties(undefined)).toEqual([]);
    expect(sensitiveProperties({ type: "object" })).toEqual([]);
  });
});
