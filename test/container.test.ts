/**
 * The container image and compose file, read as files (no container runs on this machine; the
 * process-level twin of compose.yaml is test/compose-twin.test.ts): the Dockerfile is multi-stage on
 * Node 20 slim, installs with `npm ci`, builds with `npm run build`, prunes to production
 * dependencies, runs as a non-root user, checks /healthz (a route the Hub serves), and bakes in no
 * secret; its commands are the npm scripts of the same names; compose.yaml has the web, the worker,
 * PostgreSQL and Redis with named volumes, health-gated starts, migrations as a one-shot service and
 * secrets from the env file; every variable either sets is documented in .env.example and read by the
 * Hub; .dockerignore keeps local state and secrets out of the build context.
 */
// covers: Dockerfile, .dockerignore, compose.yaml, deploy/entrypoint.sh, deploy/healthcheck.mjs, .env.example
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compose,
  dockerfile,
  entrypointCommands,
  envExampleNames,
  envPairs,
  execForm,
  interpolated,
  namesReadByCode,
  npmScripts,
} from "./support/deploy-files";
import { repoRoot } from "./support/hub";

const df = dockerfile();
const runtime = df.stages.at(-1)!;
const build = df.stages.find((s) => s.name === "build")!;
const runs = (s: typeof build) => s.instructions.filter((i) => i.op === "RUN").map((i) => i.args);
const last = (op: string) => runtime.instructions.filter((i) => i.op === op).at(-1)?.args;
const runtimeEnv = Object.assign(
  {},
  ...runtime.instructions.filter((i) => i.op === "ENV").map((i) => envPairs(i.args)),
);
const file = compose();
const HUB_SERVICES = ["migrate", "web", "worker"];
/** Names a secret would go by: none may be given a value in the image or in compose.yaml itself. */
const SECRET_NAME = /SECRET|PASSWORD|TOKEN|_KEY$|^DATABASE_URL$|^REDIS_URL$/;
/** Read by Node's frameworks rather than the Hub's code (Next and React pick their production builds). */
const FRAMEWORK_NAMES = new Set(["NODE_ENV"]);

describe("the Dockerfile", () => {
  it("builds in a Node 20 slim stage with npm ci and npm run build, then prunes to production dependencies", () => {
    expect(df.args.NODE_IMAGE).toBe("node:20-slim");
    expect(df.stages.length).toBeGreaterThanOrEqual(2);
    for (const s of df.stages) expect(s.from).toBe(`$${"{NODE_IMAGE}"}`);
    expect(build).toBeDefined();
    const steps = runs(build);
    const ci = steps.findIndex((r) => /^npm ci\b/.test(r));
    const built = steps.indexOf("npm run build");
    const pruned = steps.findIndex((r) => /^npm prune --omit=dev\b/.test(r));
    expect(ci).toBeGreaterThanOrEqual(0);
    expect(built).toBeGreaterThan(ci);
    expect(pruned).toBeGreaterThan(built);
    // The runtime stage takes the pruned tree from the build stage and installs nothing of npm's.
    expect(runtime.instructions.some((i) => i.op === "COPY" && i.args.startsWith("--from=build"))).toBe(true);
    expect(runs(runtime).some((r) => /\bnpm\b/.test(r))).toBe(false);
    expect(npmScripts().build).toMatch(/next build/);
  });

  it("runs as a non-root user", () => {
    const user = last("USER");
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    // The node image's unprivileged user, which owns the app's files.
    expect(user).toBe("node");
    expect(runtime.instructions.find((i) => i.op === "COPY")?.args).toContain("--chown=node:node");
  });

  it("checks health on /healthz, a route the Hub serves", () => {
    const hc = last("HEALTHCHECK")!;
    expect(hc).toMatch(/--interval=\d+s/);
    const words = execForm(hc.slice(hc.indexOf("CMD") + 3).trim());
    expect(words).toEqual(["node", "deploy/healthcheck.mjs"]);
    const script = readFileSync(join(repoRoot, "deploy/healthcheck.mjs"), "utf8");
    expect(script).toContain("/healthz");
    const route = readFileSync(join(repoRoot, "app/healthz/route.ts"), "utf8");
    expect(route).toMatch(/export (async )?function GET/);
  });

  it("has one entry point whose commands are the npm scripts web, worker, hub and db:migrate", () => {
    expect(execForm(last("ENTRYPOINT")!)).toEqual(["/app/deploy/entrypoint.sh"]);
    expect(execForm(last("CMD")!)).toEqual(["web"]);
    const commands = entrypointCommands();
    const scripts = npmScripts();
    const scriptOf: Record<string, string> = { web: "web", worker: "worker", hub: "hub", migrate: "db:migrate" };
    for (const [command, script] of Object.entries(scriptOf)) {
      expect(commands[command], command).toBeDefined();
      expect(commands[command]!.join(" "), command).toBe(scripts[script]);
    }
    expect(commands["ma2h-hub"]).toEqual(["node", "bin/ma2h-hub.js"]);
    const bin = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { bin: Record<string, string> })
      .bin["ma2h-hub"];
    expect(bin).toBe("bin/ma2h-hub.js");
  });

  it("sets only documented variables the Hub reads, and no secret", () => {
    const documented = envExampleNames();
    const read = namesReadByCode();
    expect(Object.keys(runtimeEnv).length).toBeGreaterThan(0);
    for (const name of Object.keys(runtimeEnv)) {
      expect(documented.has(name), `${name} in .env.example`).toBe(true);
      expect(read.has(name) || FRAMEWORK_NAMES.has(name), `${name} read by the code`).toBe(true);
    }
    for (const s of df.stages)
      for (const i of s.instructions.filter((x) => x.op === "ENV" || x.op === "ARG")) {
        const pairs = i.op === "ENV" ? envPairs(i.args) : { [i.args.split("=")[0]!]: i.args.split("=")[1] ?? "" };
        for (const [name, value] of Object.entries(pairs))
          if (SECRET_NAME.test(name)) expect(value.replace(/^\$\{?[A-Z_]+\}?$/, ""), `${name} baked in`).toBe("");
      }
    // No env file or local state copied in: the build context excludes them.
    const ignore = readFileSync(join(repoRoot, ".dockerignore"), "utf8").split("\n");
    for (const entry of [".env", ".env.*", "!.env.example", ".data", "node_modules", ".next", ".git"])
      expect(ignore, entry).toContain(entry);
  });

  it("the scan sees a secret and a root user when there is one", () => {
    const bad = dockerfile(
      `ARG NODE_IMAGE=node:20-slim\nFROM $${"{NODE_IMAGE}"}\n# comment\nENV AUTH_SECRET=abc \\\n    PORT=3000\nUSER root\n`,
    );
    const env = envPairs(bad.stages[0]!.instructions[0]!.args);
    expect(env).toEqual({ AUTH_SECRET: "abc", PORT: "3000" });
    expect(SECRET_NAME.test("AUTH_SECRET")).toBe(true);
    expect(bad.stages[0]!.instructions.at(-1)).toEqual({ op: "USER", args: "root" });
  });
});

describe("compose.yaml", () => {
  const services = file.services as Record<string, any>;

  it("has the web, the worker, PostgreSQL, Redis and a one-shot migration, from the one image", () => {
    expect(Object.keys(services).sort()).toEqual(["migrate", "postgres", "redis", "web", "worker"]);
    for (const name of HUB_SERVICES) {
      expect(services[name].build, name).toBe(".");
      expect(services[name].image, name).toBe("ma2h-hub:local");
    }
    const commands = entrypointCommands();
    for (const name of HUB_SERVICES) {
      expect(services[name].command, name).toEqual([name]);
      expect(commands[name], name).toBeDefined();
    }
    expect(services.migrate.restart).toBe("no");
    expect(services.postgres.image).toMatch(/^postgres:\d+$/);
    expect(services.redis.image).toMatch(/^redis:\d+$/);
  });

  it("keeps data in named volumes", () => {
    const volumes = Object.keys(file.volumes ?? {});
    expect(volumes.length).toBeGreaterThan(0);
    const used = Object.values(services).flatMap((s: any) => (s.volumes ?? []).map((v: string) => v.split(":")[0]));
    expect(used.sort()).toEqual(volumes.sort());
    expect(services.postgres.volumes).toContain("postgres-data:/var/lib/postgresql/data");
  });

  it("starts each service only once what it needs is healthy or done", () => {
    for (const dep of ["postgres", "redis"]) expect(services[dep].healthcheck?.test?.[0]).toBe("CMD");
    expect(services.migrate.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    for (const name of ["web", "worker"]) {
      expect(services[name].depends_on.postgres.condition, name).toBe("service_healthy");
      expect(services[name].depends_on.redis.condition, name).toBe("service_healthy");
      expect(services[name].depends_on.migrate.condition, name).toBe("service_completed_successfully");
    }
    // The web has the image's HEALTHCHECK; the worker (no HTTP) and the migration turn it off.
    expect(services.web.healthcheck).toBeUndefined();
    expect(services.worker.healthcheck).toEqual({ disable: true });
    expect(services.migrate.healthcheck).toEqual({ disable: true });
    // The web listens on the host's loopback only, for the TLS-terminating proxy.
    expect(services.web.ports).toEqual(["127.0.0.1:3000:3000"]);
    expect(services.web.environment.MA2H_TRUST_PROXY).toBe("1");
  });

  it("takes secrets from the env file only; every variable is documented and read by the Hub", () => {
    const documented = envExampleNames();
    const read = namesReadByCode();
    const text = readFileSync(join(repoRoot, "compose.yaml"), "utf8");
    for (const name of interpolated(text)) expect(documented.has(name), `\${${name}} in .env.example`).toBe(true);
    for (const name of HUB_SERVICES) {
      const s = services[name];
      expect(s.env_file, name).toEqual([".env"]);
      for (const [key, value] of Object.entries(s.environment as Record<string, string>)) {
        expect(documented.has(key), `${key} in .env.example`).toBe(true);
        expect(read.has(key), `${key} read by the code`).toBe(true);
        if (SECRET_NAME.test(key)) {
          // A URL may name hosts, but its password comes from the env file.
          const password = /:\/\/[^:@/]*:([^@]*)@/.exec(value)?.[1];
          if (password !== undefined) expect(password, key).toMatch(/^\$\{[A-Z_]+(:\?[^}]*)?\}$/);
        }
      }
    }
    expect(services.postgres.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD(:\?[^}]*)?\}$/);
    expect(existsSync(join(repoRoot, ".env.example"))).toBe(true);
  });
});
