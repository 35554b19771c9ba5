/**
 * Structured JSON-line logger. §9.6: logs never carry `state`, and by default no body, context,
 * response value or comment; credentials never. Callers pass ids and codes only — the deny-list
 * below is a second fence, not the first.
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

const DENY =
  /^(state|body|context|value|comment|response|request|action|envelope|authorization|x-api-key|api_key|token|secret|password|auth_secret)$/i;

function threshold(): number {
  const l = (process.env.LOG_LEVEL ?? "info") as Level | "silent";
  return ORDER[l] ?? ORDER.info;
}

function scrub(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (DENY.test(k)) continue;
    if (v instanceof Error) out[k] = { name: v.name, message: v.message };
    else if (v === null || ["string", "number", "boolean"].includes(typeof v)) out[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number")) out[k] = v;
  }
  return out;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

function make(base: Record<string, unknown>): Logger {
  const write = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[level] < threshold()) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...scrub(fields) });
    (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => make({ ...base, ...scrub(fields) }),
  };
}

export const log: Logger = make({});
