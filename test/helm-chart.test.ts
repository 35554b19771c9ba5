/**
 * The Helm chart deploy/helm/ma2h-hub, without helm (not available here): its templates rendered by
 * test/support/helm-subset.ts, a renderer of exactly the documented template subset (a construct
 * outside it fails), with the chart's default values and with the other branches switched on; each
 * manifest parsed with `yaml` and validated against the Kubernetes schemas (kubernetes-models);
 * values.schema.json compiled with Ajv, the default values valid and bad ones refused. Then what the
 * chart must say: web and worker Deployments, readiness on /readyz and liveness on /healthz, the
 * migration Job as a pre-install/pre-upgrade hook with its ConfigMap and Secret created before it,
 * Service, Ingress with TLS, a PodDisruptionBudget, resource requests on every container, the
 * optional HorizontalPodAutoscaler, non-root pods, commands of the image, and an environment whose
 * every name is documented in .env.example and read by the Hub.
 */
// covers: deploy/helm/ma2h-hub/, test/support/helm-subset.ts
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import * as core from "kubernetes-models/v1";
import * as apps from "kubernetes-models/apps/v1";
import * as autoscaling from "kubernetes-models/autoscaling/v2";
import * as batch from "kubernetes-models/batch/v1";
import * as networking from "kubernetes-models/networking.k8s.io/v1";
import * as policy from "kubernetes-models/policy/v1";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { entrypointCommands, envExampleNames, namesReadByCode } from "./support/deploy-files";
import { renderChart, SubsetError } from "./support/helm-subset";
import { repoRoot } from "./support/hub";

const CHART = join(repoRoot, "deploy/helm/ma2h-hub");
const files: Record<string, string> = Object.fromEntries(
  readdirSync(join(CHART, "templates")).map((f) => [
    `templates/${f}`,
    readFileSync(join(CHART, "templates", f), "utf8"),
  ]),
);
const chart = parse(readFileSync(join(CHART, "Chart.yaml"), "utf8")) as {
  name: string;
  version: string;
  appVersion: string;
};
const defaults = () => parse(readFileSync(join(CHART, "values.yaml"), "utf8")) as Record<string, any>;
const schema = JSON.parse(readFileSync(join(CHART, "values.schema.json"), "utf8")) as object;

/** The Kubernetes model of each apiVersion/kind the chart may render. */
const MODELS: Record<string, { new (data: any): { validate(): void } }> = {
  "v1/ConfigMap": core.ConfigMap,
  "v1/Secret": core.Secret,
  "v1/Service": core.Service,
  "apps/v1/Deployment": apps.Deployment,
  "batch/v1/Job": batch.Job,
  "networking.k8s.io/v1/Ingress": networking.Ingress,
  "policy/v1/PodDisruptionBudget": policy.PodDisruptionBudget,
  "autoscaling/v2/HorizontalPodAutoscaler": autoscaling.HorizontalPodAutoscaler,
};

type Manifest = Record<string, any>;

/** Renders the chart and parses every document (as Kubernetes reads YAML: 1.1), empty ones dropped. */
function manifests(values: Record<string, any>): Manifest[] {
  const out: Manifest[] = [];
  for (const [name, text] of Object.entries(renderChart(files, values, chart))) {
    for (const doc of parseAllDocuments(text, { version: "1.1" })) {
      expect(doc.errors, name).toEqual([]);
      const m = doc.toJS() as Manifest | null;
      if (m) out.push(m);
    }
  }
  return out;
}

function validate(m: Manifest): void {
  const Model = MODELS[`${m.apiVersion}/${m.kind}`];
  expect(Model, `${m.apiVersion} ${m.kind} has a schema here`).toBeDefined();
  new Model!(m).validate();
}

const find = (ms: Manifest[], kind: string, suffix = "") =>
  ms.find((m) => m.kind === kind && String(m.metadata.name).endsWith(suffix));
const containers = (m: Manifest): Manifest[] => m.spec.template.spec.containers;

const valuesWithEverything = () => {
  const v = defaults();
  v.web.autoscaling.enabled = true;
  v.secret.existingSecret = "hub-env-from-vault";
  v.imagePullSecrets = [{ name: "registry" }];
  v.nodeSelector = { "kubernetes.io/os": "linux" };
  v.tolerations = [{ key: "dedicated", operator: "Equal", value: "hub", effect: "NoSchedule" }];
  v.image.tag = "1.2.3";
  return v;
};

describe("the chart renders valid Kubernetes manifests", () => {
  it("with the default values", () => {
    const ms = manifests(defaults());
    expect(ms.map((m) => m.kind).sort()).toEqual(
      ["ConfigMap", "Deployment", "Deployment", "Ingress", "Job", "PodDisruptionBudget", "Secret", "Service"].sort(),
    );
    for (const m of ms) validate(m);
  });

  it("with autoscaling, an existing Secret and every optional block switched on", () => {
    const ms = manifests(valuesWithEverything());
    for (const m of ms) validate(m);
    expect(find(ms, "HorizontalPodAutoscaler")).toBeDefined();
    expect(find(ms, "Secret")).toBeUndefined(); // the operator's own Secret is used
    const web = find(ms, "Deployment", "-web")!;
    expect(web.spec.replicas).toBeUndefined(); // the autoscaler owns the count
    expect(web.spec.template.spec.imagePullSecrets).toEqual([{ name: "registry" }]);
    expect(web.spec.template.spec.tolerations).toHaveLength(1);
    expect(containers(web)[0]!.image).toBe("ghcr.io/ma2h-hub/ma2h-hub:1.2.3");
    expect(containers(web)[0]!.envFrom[1]).toEqual({ secretRef: { name: "hub-env-from-vault" } });
  });

  it("with the ingress and the disruption budget off", () => {
    const v = defaults();
    v.ingress.enabled = false;
    v.web.podDisruptionBudget.enabled = false;
    const kinds = manifests(v).map((m) => m.kind);
    expect(kinds).not.toContain("Ingress");
    expect(kinds).not.toContain("PodDisruptionBudget");
  });

  it("a manifest the schemas refuse is refused (the validation is live)", () => {
    const web = find(manifests(defaults()), "Deployment", "-web")!;
    containers(web)[0]!.ports[0].containerPort = "3000";
    expect(() => validate(web)).toThrow(/containerPort/);
  });
});

describe("what the chart says", () => {
  const ms = manifests(defaults());
  const web = find(ms, "Deployment", "-web")!;
  const worker = find(ms, "Deployment", "-worker")!;
  const job = find(ms, "Job")!;

  it("web: replicas, readiness on /readyz, liveness on /healthz, behind the proxy header", () => {
    expect(web.spec.replicas).toBe(2);
    const c = containers(web)[0]!;
    expect(c.readinessProbe.httpGet.path).toBe("/readyz");
    expect(c.livenessProbe.httpGet.path).toBe("/healthz");
    for (const probe of [c.readinessProbe, c.livenessProbe]) {
      expect(probe.httpGet.port).toBe("http");
      expect(probe.httpGet.httpHeaders).toEqual([{ name: "X-Forwarded-Proto", value: "https" }]);
    }
    expect(c.ports).toEqual([{ name: "http", containerPort: 3000, protocol: "TCP" }]);
    // Both routes exist in the Hub.
    for (const route of ["healthz", "readyz"])
      expect(readFileSync(join(repoRoot, "app", route, "route.ts"), "utf8")).toMatch(/export (async )?function GET/);
  });

  it("the migration Job runs before install and upgrade, after its ConfigMap and Secret", () => {
    const weight = (m: Manifest) => Number(m.metadata.annotations["helm.sh/hook-weight"]);
    expect(job.metadata.annotations["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    for (const kind of ["ConfigMap", "Secret"]) {
      const m = find(ms, kind)!;
      expect(m.metadata.annotations["helm.sh/hook"], kind).toBe("pre-install,pre-upgrade");
      expect(weight(m), kind).toBeLessThan(weight(job));
    }
    expect(job.spec.template.spec.restartPolicy).toBe("Never");
  });

  it("runs the image's commands web, worker and migrate, as non-root, with resource requests", () => {
    const commands = entrypointCommands();
    const pods = [web, worker, job];
    expect(pods.map((p) => containers(p)[0]!.args)).toEqual([["web"], ["worker"], ["migrate"]]);
    for (const p of pods) {
      for (const c of containers(p)) {
        expect(commands[c.args[0]], c.args[0]).toBeDefined();
        expect(c.resources.requests.cpu, c.name).toBeDefined();
        expect(c.resources.requests.memory, c.name).toBeDefined();
        expect(c.securityContext.allowPrivilegeEscalation).toBe(false);
      }
      expect(p.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      expect(p.spec.template.spec.securityContext.runAsUser).not.toBe(0);
    }
  });

  it("Service, Ingress with TLS and the disruption budget select the web pods", () => {
    const service = find(ms, "Service")!;
    const ingress = find(ms, "Ingress")!;
    const pdb = find(ms, "PodDisruptionBudget")!;
    const podLabels = web.spec.template.metadata.labels;
    for (const selector of [service.spec.selector, pdb.spec.selector.matchLabels, web.spec.selector.matchLabels])
      for (const [k, v] of Object.entries(selector)) expect(podLabels[k], k).toBe(v);
    expect(service.spec.selector["app.kubernetes.io/component"]).toBe("web");
    expect(ingress.spec.tls).toEqual([{ hosts: ["hub.example.com"], secretName: "ma2h-hub-tls" }]);
    expect(ingress.spec.rules[0].http.paths[0].backend.service.name).toBe(service.metadata.name);
    expect(ingress.metadata.annotations["nginx.ingress.kubernetes.io/proxy-buffering"]).toBe("off");
    expect(pdb.spec.minAvailable).toBe(1);
  });

  it("the pods' environment: every name documented in .env.example and read by the Hub; the database is external", () => {
    const documented = envExampleNames();
    const read = namesReadByCode();
    const config = find(ms, "ConfigMap")!;
    const secret = find(ms, "Secret")!;
    const names = [...Object.keys(config.data), ...Object.keys(secret.stringData)];
    expect(names).toEqual(expect.arrayContaining(["DATABASE_URL", "REDIS_URL", "AUTH_SECRET", "MA2H_PUBLIC_URL"]));
    for (const name of names) {
      expect(documented.has(name), `${name} in .env.example`).toBe(true);
      expect(read.has(name), `${name} read by the code`).toBe(true);
    }
    for (const value of Object.values(config.data)) expect(typeof value).toBe("string");
    // No PostgreSQL or Redis of the chart's own.
    expect(ms.some((m) => /postgres|redis/i.test(JSON.stringify(m.spec?.template?.spec?.containers ?? [])))).toBe(
      false,
    );
  });
});

describe("values.schema.json (Ajv)", () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const check = ajv.compile(schema);

  it("accepts the chart's values and the everything-on variant", () => {
    expect(check(defaults()), JSON.stringify(check.errors)).toBe(true);
    expect(check(valuesWithEverything()), JSON.stringify(check.errors)).toBe(true);
  });

  it("refuses a short AUTH_SECRET, a secret in the ConfigMap, zero replicas and unknown keys", () => {
    const bad: [string, (v: Record<string, any>) => void][] = [
      ["short secret", (v) => (v.secret.authSecret = "too-short")],
      ["secret in config", (v) => (v.config.AUTH_SECRET = "x".repeat(40))],
      ["zero replicas", (v) => (v.web.replicas = 0)],
      ["unknown key", (v) => (v.web.replica = 2)],
      ["not a URL", (v) => (v.secret.databaseUrl = "mysql://x")],
      ["lower-case env name", (v) => (v.config.log_level = "info")],
    ];
    for (const [what, edit] of bad) {
      const v = defaults();
      edit(v);
      expect(check(v), what).toBe(false);
    }
  });
});

describe("the template subset (test/support/helm-subset.ts)", () => {
  const render = (template: string, values: Record<string, unknown> = {}, helpers = "") =>
    renderChart({ "templates/_helpers.tpl": helpers, "templates/t.yaml": template }, values, chart)["templates/t.yaml"];

  it("renders each construct of the subset as Go templates do", () => {
    expect(render("a: {{ .Values.x }}", { x: 1 })).toBe("a: 1");
    expect(render("{{ .Release.Name }}-{{ .Chart.Name }}@{{ .Chart.AppVersion }}")).toBe("hub-ma2h-hub@0.1.0");
    expect(render("x\n  {{- if .Values.on }} on{{ else }} off{{ end }}", { on: [] })).toBe("x off");
    expect(render("{{ range $k, $v := .Values.m }}{{ $k }}={{ $v }};{{ end }}", { m: { b: 2, a: 1 } })).toBe(
      "a=1;b=2;",
    );
    expect(render("{{ range .Values.l }}[{{ . }}]{{ end }}", { l: ["x", "y"] })).toBe("[x][y]");
    expect(render("{{ with .Values.w }}{{ .n }}{{ else }}none{{ end }}", { w: { n: 5 } })).toBe("5");
    expect(render("{{ with .Values.w }}{{ .n }}{{ else }}none{{ end }}", { w: {} })).toBe("none");
    expect(render('{{ .Values.t | default "d" | quote }}', { t: "" })).toBe('"d"');
    expect(render("{{ .Values.n | quote }}", { n: 3000 })).toBe('"3000"');
    expect(render("k:\n  {{- toYaml .Values.o | nindent 2 }}", { o: { a: [1], b: "off" } })).toBe(
      'k:\n  a:\n    - 1\n  b: "off"',
    );
    expect(render('{{ include "h" . }}', {}, '{{- define "h" -}}\n{{ .Release.Name }}\n{{- end -}}')).toBe("hub");
    expect(render("{{/* a comment */}}a {{- /* trimmed */}} b")).toBe("a b");
  });

  it("fails on every construct outside it", () => {
    const outside = [
      "{{ .Capabilities.KubeVersion.Version }}",
      '{{ .Files.Get "x" }}',
      '{{ printf "%s" .Values.x }}',
      '{{ required "x" .Values.x }}',
      "{{ tpl .Values.x . }}",
      "{{ if .Values.a }}a{{ else if .Values.b }}b{{ end }}",
      "{{ if not .Values.a }}a{{ end }}",
      "{{ (.Values.a) }}",
      "{{ .Values.a | upper }}",
      '{{ template "h" . }}',
      '{{ include "missing" . }}',
      "{{ .Values.map }}",
      "{{ .Values.missing.deeper }}",
      "{{ if .Values.a }}unclosed",
      "{{ $x := .Values.a }}",
    ];
    for (const t of outside) expect(() => render(t, { a: 1, map: { k: 1 } }), t).toThrow(SubsetError);
  });
});
