/**
 * Reading request bodies ourselves: §8.6 wants an over-size envelope answered `422`, not a
 * framework 413, and we never buffer more than `max_body_bytes` + 1.
 */
import { readCappedBody } from "@ma2h/protocol/capped-body";
import { HubError } from "@ma2h/protocol/errors";
import { assertStorableJson } from "./json-limits";

export interface BodyOptions {
  maxBytes: number;
  /** Submit and resolve insist on `application/json`; cancel takes any or none. */
  requireJson: boolean;
  /** Cancel accepts an empty body (read as `{}`). */
  allowEmpty: boolean;
}

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]?.trim().toLowerCase();
  return type === "application/json";
}

/**
 * The body bytes, at most `maxBytes` (null over it). A client that goes away before its body is
 * whole is `400 validation_error`, not a 500 (found by the fuzzer).
 */
export async function readBodyBytes(req: Request, maxBytes: number): Promise<Uint8Array | null> {
  try {
    return await readCappedBody(req, maxBytes);
  } catch {
    throw new HubError("validation_error", "the request body ended before it was complete");
  }
}

async function readCapped(req: Request, maxBytes: number): Promise<string> {
  const bytes = await readBodyBytes(req, maxBytes);
  if (bytes === null) throw new HubError("invalid_field", `request body exceeds max_body_bytes (${maxBytes})`);
  return Buffer.from(bytes).toString("utf8");
}

/** Returns the parsed JSON object of the request, or throws a §8.5-shaped HubError. */
export async function readJsonObject(req: Request, options: BodyOptions): Promise<Record<string, unknown>> {
  if (options.requireJson && !isJsonContentType(req.headers.get("content-type"))) {
    throw new HubError("validation_error", "Content-Type must be application/json");
  }
  const text = await readCapped(req, options.maxBytes);
  if (text.trim() === "") {
    if (options.allowEmpty) return {};
    throw new HubError("validation_error", "request body is empty; a JSON object is required");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HubError("validation_error", "request body is not valid JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new HubError("validation_error", "request body must be a JSON object");
  }
  assertStorableJson(parsed);
  return parsed as Record<string, unknown>;
}
