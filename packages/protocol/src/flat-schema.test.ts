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
    [
      "array property without choices",
      { type: "object", properties: { a: { type: "array", items: { type: "string" } } } },
    ],
    [
      "array of objects",
      { type: "object", properties: { a: { type: "array", items: { type: "object", properties: {} } } } },
    ],
    ["$ref", { type: "object", properties: { a: { $ref: "#/$defs/x" } } }],
    ["combinator", { type: "object", properties: { a: { anyOf: [{ type: "string" }] } } }],
    ["root combinator", { type: "object", properties: { a: { type: "string" } }, oneOf: [] }],
    ["type list", { type: "object", properties: { a: { type: ["string", "null"] } } }],
    ["unenforced keyword", { type: "object", properties: { a: { type: "string", contentEncoding: "base64" } } }],
    ["a keyword of another type", { type: "object", properties: { a: { type: "integer", maxLength: 3 } } }],
    ["unknown format", { type: "object", properties: { a: { type: "string", format: "ipv4" } } }],
    ["invalid pattern", { type: "object", properties: { a: { type: "string", pattern: "(" } } }],
    [
      "minLength above maxLength",
      { type: "object", properties: { a: { type: "string", minLength: 3, maxLength: 2 } } },
    ],
    ["negative minLength", { type: "object", properties: { a: { type: "string", minLength: -1 } } }],
    ["minimum not a number", { type: "object", properties: { a: { type: "number", minimum: "1" } } }],
    [
      "a default outside the bounds",
      { type: "object", properties: { a: { type: "integer", maximum: 3, default: 4 } } },
    ],
    ["a default of the wrong type", { type: "object", properties: { a: { type: "boolean", default: "yes" } } }],
    ["oneOf without titles", { type: "object", properties: { a: { type: "string", oneOf: [{ const: "x" }] } } }],
    [
      "oneOf with a repeated const",
      {
        type: "object",
        properties: {
          a: {
            type: "string",
            oneOf: [
              { const: "x", title: "X" },
              { const: "x", title: "Y" },
            ],
          },
        },
      },
    ],
    [
      "enumNames of another length",
      { type: "object", properties: { a: { type: "string", enum: ["x"], enumNames: [] } } },
    ],
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

  it("says what is not supported: nested objects, arrays of objects, $ref", () => {
    expect(rejection({ properties: { a: { type: "object", properties: { b: { type: "string" } } } } })).toBe(
      "request.schema.properties.a.type: nested objects are not supported: a property is a string, number, integer, boolean, or an array of enum strings (multi-select) (§5.2 flat schema)",
    );
    expect(rejection({ properties: { a: { type: "array", items: { type: "object" } } } })).toContain(
      "request.schema.properties.a.items: arrays of objects are not supported",
    );
    expect(rejection({ $defs: { x: {} }, properties: { a: { $ref: "#/$defs/x" } } })).toBe(
      "request.schema.properties.a.$ref: $ref is not supported: write each property out in place (§5.2 flat schema)",
    );
  });

  it("accepts MCP elicitation's restricted schema", () => {
    expect(() => assertFlatSchema(MCP)).not.toThrow();
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

/** Every primitive MCP elicitation's restricted schema defines, plus `pattern`. */
const MCP = {
  type: "object",
  properties: {
    email: { type: "string", format: "email", title: "Email" },
    site: { type: "string", format: "uri" },
    day: { type: "string", format: "date", default: "2026-05-01" },
    at: { type: "string", format: "date-time" },
    name: { type: "string", minLength: 2, maxLength: 5, default: "ada" },
    ticket: { type: "string", pattern: "^[A-Z]+-\\d+$" },
    count: { type: "integer", minimum: 1, maximum: 10, default: 3 },
    ratio: { type: "number", minimum: 0, maximum: 1 },
    ok: { type: "boolean", default: true },
    size: {
      type: "string",
      oneOf: [
        { const: "s", title: "Small" },
        { const: "l", title: "Large" },
      ],
      default: "s",
    },
    tier: { type: "string", enum: ["a", "b"], enumNames: ["Tier A", "Tier B"] },
    regions: { type: "array", items: { type: "string", enum: ["eu", "us", "ap"] }, minItems: 1, maxItems: 2 },
    teams: {
      type: "array",
      items: {
        anyOf: [
          { const: "web", title: "Web" },
          { const: "ops", title: "Ops" },
        ],
      },
      uniqueItems: true,
      default: ["ops"],
    },
  },
  required: ["email", "regions"],
};

describe("validateFlat with MCP's restricted schema", () => {
  const ok = { email: "ada@example.com", regions: ["eu"] };

  it("accepts values within every constraint", () => {
    expect(
      validateFlat(MCP, {
        ...ok,
        site: "https://example.com/x",
        day: "2024-02-29",
        at: "2026-05-01T09:00:00Z",
        name: "ada",
        ticket: "OPS-12",
        count: 10,
        ratio: 0,
        ok: false,
        size: "l",
        tier: "b",
        teams: ["web", "ops"],
      }),
    ).toBeNull();
  });

  it.each([
    ["an email", { email: "ada" }, "email: must be an email address"],
    ["a uri", { site: "example.com" }, "site: must be an absolute URI"],
    ["a date", { day: "2025-02-29" }, "day: must be a date (YYYY-MM-DD)"],
    ["a date-time", { at: "2026-05-01 09:00" }, "at: must be a date-time (RFC 3339, e.g. 2026-05-01T09:00:00Z)"],
    ["minLength", { name: "a" }, "name: must be at least 2 characters"],
    ["maxLength (code points)", { name: "😀😀😀😀😀😀" }, "name: must be at most 5 characters"],
    ["pattern", { ticket: "ops-12" }, 'ticket: must match the pattern "^[A-Z]+-\\\\d+$"'],
    ["minimum", { count: 0 }, "count: must be at least 1"],
    ["maximum", { ratio: 1.5 }, "ratio: must be at most 1"],
    ["a titled oneOf", { size: "Small" }, 'size: must be one of "s", "l"'],
    ["a multi-select member", { regions: ["eu", "mars"] }, 'regions: "mars" is not one of the listed choices'],
    ["a multi-select repeat", { regions: ["eu", "eu"] }, "regions: must not list a choice twice"],
    ["minItems", { regions: [] }, "regions: must list at least 1 choice"],
    ["maxItems", { regions: ["eu", "us", "ap"] }, "regions: must list at most 2 choices"],
    ["a multi-select as a string", { regions: "eu" }, "regions: must be an array of the listed choices"],
  ])("refuses %s", (_name, over, message) => {
    expect(validateFlat(MCP, { ...ok, ...over })).toBe(message);
  });

  it("a catastrophically backtracking pattern is cut off quickly and does not match", () => {
    const evil = { properties: { a: { type: "string", pattern: "^(a+)+$" } } };
    const started = Date.now();
    expect(validateFlat(evil, { a: `${"a".repeat(40)}!` })).toBe('a: must match the pattern "^(a+)+$"');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(validateFlat(evil, { a: "aaaa" })).toBeNull();
  });
});

describe("sensitiveProperties", () => {
  it("lists properties marked x-ma2h-sensitive: true", () => {
    expect(sensitiveProperties(schema)).toEqual(["api_key"]);
    expect(sensitiveProperties(undefined)).toEqual([]);
    expect(sensitiveProperties({ type: "object" })).toEqual([]);
  });
});
