/**
 * The OpenTelemetry packages the Hub depends on (lib/telemetry) — and every @opentelemetry package
 * they pull in — admit the Node the Hub runs on, by their own `engines` (what `npm install
 * --engine-strict` checks): the OTLP exporter's 0.3xx line wants Node 22, the 0.2xx line does not.
 */
// covers: lib/telemetry/tracing.ts
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const version = process.versions.node.split(".").map(Number) as [number, number, number];

const cmp = (a: number[], b: number[]) => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};

/** The `engines.node` forms these packages use: `>=x[.y[.z]]`, `^x.y.z`, joined by `||`. */
function admits(range: string, v: number[]): boolean {
  return range.split("||").some((part) => {
    const m = /^\s*(>=|\^)\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(part);
    if (!m) throw new Error(`unexpected engines range: ${part}`);
    const floor = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
    return m[1] === ">=" ? cmp(v, floor) >= 0 : v[0] === floor[0] && cmp(v, floor) >= 0;
  });
}

describe("OpenTelemetry packages and this Node", () => {
  it("the range reader reads what it must", () => {
    expect(admits("^18.19.0 || >=20.6.0", [20, 20, 2])).toBe(true);
    expect(admits(">=22.15.0", [20, 20, 2])).toBe(false);
    expect(admits("^18.19.0", [20, 1, 0])).toBe(false);
    expect(admits(">=14", [20, 1, 0])).toBe(true);
  });

  it("every installed @opentelemetry package admits it", () => {
    const dir = join(root, "node_modules", "@opentelemetry");
    const names = readdirSync(dir);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies).filter((d) => d.startsWith("@opentelemetry/")).length).toBeGreaterThanOrEqual(
      4,
    );
    const refused = names.flatMap((name) => {
      const p = JSON.parse(readFileSync(join(dir, name, "package.json"), "utf8")) as { engines?: { node?: string } };
      const range = p.engines?.node;
      return range && !admits(range, version) ? [`@opentelemetry/${name} wants node ${range}`] : [];
    });
    expect(refused).toEqual([]);
  });
});
