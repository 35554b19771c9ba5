/**
 * A renderer of exactly the Helm template subset the chart deploy/helm/ma2h-hub keeps to
 * (docs/DEPLOYMENT.md, "Kubernetes"), for test/helm-chart.test.ts: neither `helm` nor a Go-template
 * engine is available here. The subset: `.Values`, `.Release` and `.Chart` lookups (and `.`, `$`,
 * `$name` from a range), `if`/`else`, `range` (over a list or a map, with `$k, $v :=` or `$v :=` or
 * none), `with`, `include` of a `define` from `_helpers.tpl`, `default`, `quote`, `toYaml`,
 * `nindent N`, pipelines of those, string and number literals, comments (`{{/*` … `*` + `/}}`) and the `{{-`/`-}}`
 * whitespace trims — with Go templates' meaning (truthiness, sorted map keys, the last argument
 * piped). Anything else (another function, `else if`, parentheses, `.Capabilities`, `.Files`, a map
 * printed without toYaml, a missing define) throws SubsetError, so a chart edit that leaves the
 * subset fails the test instead of rendering something Helm would render differently.
 */
import { stringify } from "yaml";

export class SubsetError extends Error {
  override name = "SubsetError";
}

type Value = unknown;
type Term =
  | { kind: "field"; base: "dot" | "root" | string; path: string[] }
  | { kind: "string"; value: string }
  | { kind: "number"; value: number }
  | { kind: "bool"; value: boolean };
type Command = { fn: string | null; args: Term[] };
type Pipeline = Command[];
type Node =
  | { t: "text"; s: string }
  | { t: "out"; pipe: Pipeline }
  | { t: "if"; cond: Pipeline; yes: Node[]; no: Node[] }
  | { t: "with"; pipe: Pipeline; yes: Node[]; no: Node[] }
  | { t: "range"; vars: string[]; pipe: Pipeline; body: Node[]; else: Node[] };

const FUNCTIONS = new Set(["include", "default", "quote", "toYaml", "nindent"]);
const ROOT_KEYS = new Set(["Values", "Release", "Chart"]);

type Token = { t: "text"; s: string } | { t: "action"; s: string; trimLeft: boolean; trimRight: boolean };

function lex(src: string, file: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf("{{", i);
    if (open < 0) {
      out.push({ t: "text", s: src.slice(i) });
      break;
    }
    out.push({ t: "text", s: src.slice(i, open) });
    const close = src.indexOf("}}", open + 2);
    if (close < 0) throw new SubsetError(`${file}: unclosed action`);
    let inner = src.slice(open + 2, close);
    let trimLeft = false;
    let trimRight = false;
    if (/^-\s/.test(inner)) {
      trimLeft = true;
      inner = inner.slice(1);
    }
    if (/\s-$/.test(inner)) {
      trimRight = true;
      inner = inner.slice(0, -1);
    }
    out.push({ t: "action", s: inner.trim(), trimLeft, trimRight });
    i = close + 2;
  }
  // Apply the trims to the neighbouring text.
  for (let k = 0; k < out.length; k++) {
    const tok = out[k]!;
    if (tok.t !== "action") continue;
    const prev = out[k - 1];
    const next = out[k + 1];
    if (tok.trimLeft && prev?.t === "text") prev.s = prev.s.replace(/[ \t\r\n]+$/, "");
    if (tok.trimRight && next?.t === "text") next.s = next.s.replace(/^[ \t\r\n]+/, "");
  }
  return out;
}

function tokenizeExpr(s: string, file: string): string[] {
  const tokens: string[] = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|\||:=|,|[^\s|,"]+)/y;
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  while (re.lastIndex < s.length) {
    m = re.exec(s);
    if (!m) {
      if (/^\s*$/.test(s.slice(re.lastIndex))) break;
      throw new SubsetError(`${file}: cannot read "${s}"`);
    }
    tokens.push(m[1]!);
  }
  return tokens;
}

function term(tok: string, file: string): Term {
  if (tok.startsWith('"')) return { kind: "string", value: JSON.parse(tok) as string };
  if (/^-?\d+$/.test(tok)) return { kind: "number", value: Number(tok) };
  if (tok === "true" || tok === "false") return { kind: "bool", value: tok === "true" };
  if (tok === ".") return { kind: "field", base: "dot", path: [] };
  const m = /^(\$[A-Za-z0-9_]*)?((?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/.exec(tok);
  if (!m || (!m[1] && !m[2])) throw new SubsetError(`${file}: "${tok}" is outside the subset`);
  const path = m[2] ? m[2].slice(1).split(".") : [];
  const base = m[1] === undefined ? "dot" : m[1] === "$" ? "root" : m[1];
  return { kind: "field", base, path };
}

function parsePipeline(tokens: string[], file: string): Pipeline {
  if (tokens.length === 0) throw new SubsetError(`${file}: an empty pipeline`);
  const commands: Command[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length === 0) throw new SubsetError(`${file}: an empty command in a pipeline`);
    const [head, ...rest] = current;
    if (/^[A-Za-z]/.test(head!) && head !== "true" && head !== "false") {
      if (!FUNCTIONS.has(head!)) throw new SubsetError(`${file}: the function "${head}" is outside the subset`);
      commands.push({ fn: head!, args: rest.map((t) => term(t, file)) });
    } else {
      if (rest.length) throw new SubsetError(`${file}: "${current.join(" ")}" is not a command`);
      commands.push({ fn: null, args: [term(head!, file)] });
    }
    current = [];
  };
  for (const tok of tokens) {
    if (tok === "|") flush();
    else if (tok === "(" || tok.startsWith("(") || tok.endsWith(")"))
      throw new SubsetError(`${file}: parentheses are outside the subset`);
    else if (tok === ":=" || tok === ",")
      throw new SubsetError(`${file}: a variable declaration here is outside the subset`);
    else current.push(tok);
  }
  flush();
  if (commands.slice(1).some((c) => c.fn === null))
    throw new SubsetError(`${file}: only a function can follow a | in the subset`);
  return commands;
}

interface Parsed {
  nodes: Node[];
  defines: Map<string, Node[]>;
}

function parse(src: string, file: string): Parsed {
  const tokens = lex(src, file);
  const defines = new Map<string, Node[]>();
  let pos = 0;
  // Parses nodes until an `end` or `else` at this level; returns what stopped it.
  const block = (top: boolean): { nodes: Node[]; stop: "end" | "else" | "eof" } => {
    const nodes: Node[] = [];
    while (pos < tokens.length) {
      const tok = tokens[pos++]!;
      if (tok.t === "text") {
        if (tok.s) nodes.push({ t: "text", s: tok.s });
        continue;
      }
      const s = tok.s;
      if (s.startsWith("/*")) {
        if (!s.endsWith("*/")) throw new SubsetError(`${file}: unclosed comment`);
        continue;
      }
      const words = tokenizeExpr(s, file);
      const head = words[0];
      if (head === "end") {
        if (words.length > 1) throw new SubsetError(`${file}: "${s}"`);
        return { nodes, stop: "end" };
      }
      if (head === "else") {
        if (words.length > 1) throw new SubsetError(`${file}: "else ${words[1]}" is outside the subset`);
        return { nodes, stop: "else" };
      }
      if (head === "if" || head === "with" || head === "range") {
        let vars: string[] = [];
        let rest = words.slice(1);
        if (head === "range") {
          const decl = rest.indexOf(":=");
          if (decl >= 0) {
            vars = rest.slice(0, decl).filter((w) => w !== ",");
            if (!vars.length || vars.length > 2 || vars.some((v) => !/^\$[A-Za-z_][A-Za-z0-9_]*$/.test(v)))
              throw new SubsetError(`${file}: "${s}": range declares $v or $k, $v`);
            rest = rest.slice(decl + 1);
          }
        }
        const pipe = parsePipeline(rest, file);
        const first = block(false);
        let otherwise: Node[] = [];
        if (first.stop === "else") {
          const second = block(false);
          if (second.stop !== "end") throw new SubsetError(`${file}: "${head}" without its end`);
          otherwise = second.nodes;
        } else if (first.stop !== "end") throw new SubsetError(`${file}: "${head}" without its end`);
        if (head === "if") nodes.push({ t: "if", cond: pipe, yes: first.nodes, no: otherwise });
        else if (head === "with") nodes.push({ t: "with", pipe, yes: first.nodes, no: otherwise });
        else nodes.push({ t: "range", vars, pipe, body: first.nodes, else: otherwise });
        continue;
      }
      if (head === "define") {
        if (!top) throw new SubsetError(`${file}: define inside a block`);
        if (words.length !== 2 || !words[1]!.startsWith('"'))
          throw new SubsetError(`${file}: define takes one quoted name`);
        const body = block(false);
        if (body.stop !== "end") throw new SubsetError(`${file}: define without its end`);
        defines.set(JSON.parse(words[1]!) as string, body.nodes);
        continue;
      }
      if (["template", "block", "tpl", "required", "printf", "not", "and", "or", "eq"].includes(head!))
        throw new SubsetError(`${file}: "${head}" is outside the subset`);
      nodes.push({ t: "out", pipe: parsePipeline(words, file) });
    }
    return { nodes, stop: "eof" };
  };
  const all = block(true);
  if (all.stop !== "eof") throw new SubsetError(`${file}: an ${all.stop} without its block`);
  return { nodes: all.nodes, defines };
}

/** Go templates' truth: false, 0, nil, and empty strings, lists and maps are false. */
function truthy(v: Value): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v as object).length > 0;
  return true;
}

function quoteGo(v: Value): string {
  if (v === undefined || v === null) return "";
  return JSON.stringify(typeof v === "string" ? v : String(v));
}

function printGo(v: Value, file: string): string {
  if (v === undefined || v === null) return ""; // Helm prints a missing value as nothing
  if (typeof v === "object") throw new SubsetError(`${file}: a map or list printed without toYaml`);
  return String(v);
}

interface Scope {
  dot: Value;
  root: Value;
  vars: Map<string, Value>;
}

export interface Chart {
  name: string;
  version: string;
  appVersion: string;
}

/** Renders every template of a chart directory's files (name → text) with `values`. */
export function renderChart(
  files: Record<string, string>,
  values: Record<string, unknown>,
  chart: Chart,
  release = { Name: "hub", Namespace: "default", Service: "Helm", IsInstall: true, IsUpgrade: false },
): Record<string, string> {
  const defines = new Map<string, Node[]>();
  const templates: [string, Node[]][] = [];
  for (const [name, text] of Object.entries(files)) {
    const parsed = parse(text, name);
    for (const [k, v] of parsed.defines) {
      if (defines.has(k)) throw new SubsetError(`${name}: "${k}" defined twice`);
      defines.set(k, v);
    }
    if (name.split("/").pop()!.startsWith("_")) continue; // helpers render nothing themselves
    templates.push([name, parsed.nodes]);
  }
  const root = {
    Values: values,
    Release: release,
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
  };

  const lookup = (t: Term, scope: Scope, file: string): Value => {
    if (t.kind !== "field") return t.value;
    let v: Value;
    if (t.base === "dot") v = scope.dot;
    else if (t.base === "root") v = scope.root;
    else {
      if (!scope.vars.has(t.base)) throw new SubsetError(`${file}: undefined variable ${t.base}`);
      v = scope.vars.get(t.base);
    }
    t.path.forEach((key, i) => {
      if (v === root && i === 0 && !ROOT_KEYS.has(key))
        throw new SubsetError(`${file}: .${key} is outside the subset (.Values, .Release, .Chart)`);
      if (v === undefined || v === null)
        throw new SubsetError(`${file}: nil pointer evaluating .${t.path.slice(0, i + 1).join(".")}`);
      if (typeof v !== "object" || Array.isArray(v))
        throw new SubsetError(`${file}: .${key} of a value that is not a map`);
      v = (v as Record<string, Value>)[key];
    });
    return v;
  };

  const call = (fn: string, args: Value[], file: string): Value => {
    const arity: Record<string, number> = { include: 2, default: 2, quote: 1, toYaml: 1, nindent: 2 };
    if (args.length !== arity[fn]) throw new SubsetError(`${file}: ${fn} takes ${arity[fn]} argument(s)`);
    switch (fn) {
      case "include": {
        const body = defines.get(String(args[0]));
        if (!body) throw new SubsetError(`${file}: no define "${String(args[0])}"`);
        return renderNodes(body, { dot: args[1], root, vars: new Map() }, file);
      }
      case "default":
        return truthy(args[1]) ? args[1] : args[0];
      case "quote":
        return quoteGo(args[0]);
      case "toYaml":
        return args[0] === undefined || args[0] === null
          ? "null"
          : stringify(args[0], { version: "1.1" }).replace(/\n$/, "");
      case "nindent": {
        if (typeof args[0] !== "number") throw new SubsetError(`${file}: nindent needs a number first`);
        const pad = " ".repeat(args[0]);
        return `\n${String(args[1])
          .split("\n")
          .map((line) => pad + line)
          .join("\n")}`;
      }
    }
    throw new SubsetError(`${file}: ${fn}`);
  };

  const evaluate = (pipe: Pipeline, scope: Scope, file: string): Value => {
    let value: Value;
    pipe.forEach((cmd, i) => {
      const args = cmd.args.map((a) => lookup(a, scope, file));
      if (i > 0) args.push(value);
      value = cmd.fn === null ? args[0] : call(cmd.fn, args, file);
    });
    return value;
  };

  const renderNodes = (nodes: Node[], scope: Scope, file: string): string => {
    let out = "";
    for (const node of nodes) {
      switch (node.t) {
        case "text":
          out += node.s;
          break;
        case "out":
          out += printGo(evaluate(node.pipe, scope, file), file);
          break;
        case "if":
          out += renderNodes(truthy(evaluate(node.cond, scope, file)) ? node.yes : node.no, scope, file);
          break;
        case "with": {
          const v = evaluate(node.pipe, scope, file);
          out += truthy(v) ? renderNodes(node.yes, { ...scope, dot: v }, file) : renderNodes(node.no, scope, file);
          break;
        }
        case "range": {
          const v = evaluate(node.pipe, scope, file);
          let entries: [Value, Value][];
          if (v === undefined || v === null) entries = [];
          else if (Array.isArray(v)) entries = v.map((x, i) => [i, x]);
          else if (typeof v === "object")
            entries = Object.keys(v as object)
              .sort()
              .map((k) => [k, (v as Record<string, Value>)[k]]);
          else throw new SubsetError(`${file}: range over a value that is neither a list nor a map`);
          if (!entries.length) out += renderNodes(node.else, scope, file);
          for (const [k, x] of entries) {
            const vars = new Map(scope.vars);
            if (node.vars.length === 1) vars.set(node.vars[0]!, x);
            if (node.vars.length === 2) {
              vars.set(node.vars[0]!, k);
              vars.set(node.vars[1]!, x);
            }
            out += renderNodes(node.body, { dot: x, root, vars }, file);
          }
          break;
        }
      }
    }
    return out;
  };

  const rendered: Record<string, string> = {};
  for (const [name, nodes] of templates)
    rendered[name] = renderNodes(nodes, { dot: root, root, vars: new Map() }, name);
  return rendered;
}
