/**
 * §16 session calls for the tests (test/sessions.test.ts, test/session-stop.test.ts): any verb with
 * a bearer credential, the raw text kept for byte comparisons, and the checks every session body
 * must pass — the official schema (Ajv) and our zod mirror (packages/protocol/src/session.ts). No test-runner
 * imports.
 */
import { sessionEnvelopeSchema, sessionListSchema } from "@ma2h/protocol/session";
import { type Json, officialAjv } from "./spec";

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

export async function call(base: string, method: string, path: string, token?: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers["content-type"] = "application/json";
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}

const ajv = officialAjv({ allErrors: true });
const SCHEMA = "https://ma2h.org/schema/v0.6/session.schema.json";

/** Errors of `data` against a `$defs` entry of the official session schema, [] when valid. */
export function officialErrors(def: "sessionEnvelope" | "sessionList", data: unknown): string[] {
  const validate = ajv.getSchema(`${SCHEMA}#/$defs/${def}`);
  if (!validate) throw new Error(`no schema ${SCHEMA}#/$defs/${def}`);
  return validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Errors of a single-session body against the official schema and the zod mirror, [] when valid. */
export function envelopeErrors(data: unknown): string[] {
  const mirror = sessionEnvelopeSchema.safeParse(data);
  return [
    ...officialErrors("sessionEnvelope", data),
    ...(mirror.success ? [] : mirror.error.issues.map((i) => `zod ${i.path.join(".")} ${i.message}`)),
  ];
}

/** Errors of a `GET /v1/sessions` body against the official schema and the zod mirror. */
export function listErrors(data: unknown): string[] {
  const mirror = sessionListSchema.safeParse(data);
  return [
    ...officialErrors("sessionList", data),
    ...(mirror.success ? [] : mirror.error.issues.map((i) => `zod ${i.path.join(".")} ${i.message}`)),
  ];
}
