/** A zod schema as an OpenAPI 3.1 Schema Object (JSON Schema 2020-12), by zod's own converter. */
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

/**
 * `io: "input"` for what a client sends (the route parses it: unknown members of a plain object are
 * read past), `"output"` for what the Hub answers (a plain object is closed). Refinements have no
 * JSON Schema form and are left out — the document describes shapes, the Hub still checks the rest;
 * anything unrepresentable becomes `{}`. The per-schema `$schema` is dropped: the document names the
 * dialect once (`jsonSchemaDialect`).
 */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as JsonSchema;
  return rest;
}
