/**
 * `ma2h-hub policy …`: an account's approval policy as code (docs/policies.md). `export` prints the
 * file that reproduces the policy, `apply` applies a whole file (checked whole: one problem and
 * nothing changes), `test` runs an ask through the policy as the Hub's submit would. The rules, the
 * file format and the evaluation are lib/policies'; this file reads files, calls them and prints.
 * The CLI is the operator: it applies with the owner's authority, audited as `system:cli`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { HubError } from "@ma2h/protocol/errors";
import type { PolicyDiff } from "../lib/policies/store";
import type { LocatedProblem } from "../lib/policies/yaml";
import { usageError, type Command, type CommandIo, type Flags, type Output } from "./command";

function account(flags: Flags): string {
  const slug = flags.account;
  if (slug === undefined || slug === "") throw usageError("--account is required");
  return slug;
}

/** A file's text, `-` being stdin; an unreadable file is a usage error (exit 2) that opened nothing. */
async function readInput(file: string, io: CommandIo): Promise<string> {
  if (file === "-") return io.stdin();
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    throw usageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

/** How a file is named in `name:line:col` problems. */
const nameOf = (file: string) => (file === "-" ? "<stdin>" : file);

/**
 * A refused file: every problem, `name:line:col: message` (on stderr: they are diagnostics, as a
 * compiler's), exit 1. With `--json`, the CLI's error object and the problems beside it.
 */
async function refused(problems: LocatedProblem[], file: string): Promise<Output> {
  const { formatProblems } = await import("../lib/policies/yaml");
  const n = problems.length;
  const message = `the policy was not applied: ${n} problem${n === 1 ? "" : "s"} in ${nameOf(file)}`;
  return {
    json: {
      error: { code: "invalid_field", message },
      problems: problems.map((p) => ({ line: p.line, col: p.col, path: p.path, message: p.message })),
    },
    text: `${formatProblems(problems, nameOf(file))}\n${message}; nothing changed`,
    exitCode: 1,
    textTo: "stderr",
  };
}

const isEmpty = (d: PolicyDiff) =>
  Object.values(d.rules).every((l) => l.length === 0) && Object.values(d.groups).every((l) => l.length === 0);

/** The diff, one line each kind (nothing for an empty kind). */
function diffLines(d: PolicyDiff): string[] {
  const out: string[] = [];
  const list = (label: string, names: string[]) => names.length && out.push(`  ${label}: ${names.join(", ")}`);
  list("rules added", d.rules.added);
  list("rules changed", d.rules.changed);
  list("rules removed", d.rules.removed);
  list("groups created", d.groups.created);
  const byGroup = (rows: Array<{ group: string; person: string }>, sign: string) => {
    const groups = [...new Set(rows.map((r) => r.group))];
    for (const g of groups)
      out.push(
        `  group ${g} ${sign}: ${rows
          .filter((r) => r.group === g)
          .map((r) => r.person)
          .join(", ")}`,
      );
  };
  byGroup(d.groups.added, "added");
  byGroup(d.groups.removed, "removed");
  // applyPolicy counts a new order of the same rules as a change (the recorded names follow it).
  if (isEmpty(d)) out.push("  rules reordered");
  return out;
}

export const POLICY_COMMANDS: Record<string, Command> = {
  "policy export": {
    usage: "policy export --account <slug> [--out <file.yaml>]",
    args: 0,
    async run(_args, f) {
      const slug = account(f);
      const { findAccount } = await import("../lib/principals/accounts");
      const a = await findAccount(slug);
      const { exportPolicy, readPolicy } = await import("../lib/policies/store");
      const { policyToYaml } = await import("../lib/policies/yaml");
      const [file, stored] = await Promise.all([exportPolicy(a.id), readPolicy(a.id)]);
      const applied =
        stored.revision === 0
          ? "never applied: the default policy, every ask to every answering member (§9.1)"
          : `last applied by ${stored.updatedBy ?? "unknown"} at ${stored.updatedAt?.toISOString() ?? "unknown"}`;
      const yaml = policyToYaml(
        file,
        [
          `The approval policy of account ${a.slug}, revision ${stored.revision}; ${applied}.`,
          `Apply it with: ma2h-hub policy apply <this file> --account ${a.slug} [--dry-run]`,
          "Groups list the people added by hand (the identity provider's members are not listed).",
          "Reference: docs/policies.md",
        ].join("\n"),
      );
      if (f.out === undefined) return { json: file as unknown as Record<string, unknown>, text: yaml.trimEnd() };
      await writeFile(f.out, yaml);
      return {
        json: { out: f.out, revision: stored.revision },
        text: `the approval policy of ${a.slug} (revision ${stored.revision}) written to ${f.out}`,
      };
    },
  },
  "policy apply": {
    usage: "policy apply <file.yaml|-> --account <slug> [--dry-run]",
    args: 1,
    async run([file], f, _lists, io) {
      const slug = account(f);
      const text = await readInput(file!, io);
      const { locateProblems, parsePolicyYaml } = await import("../lib/policies/yaml");
      // Checked whole before the database is opened: a bad file names every problem and changes nothing.
      const parsed = parsePolicyYaml(text);
      if (!parsed.ok) return refused(parsed.problems, file!);
      const { findAccount } = await import("../lib/principals/accounts");
      const a = await findAccount(slug);
      const { applyPolicy } = await import("../lib/policies/store");
      const dryRun = f["dry-run"] === "true";
      let r: Awaited<ReturnType<typeof applyPolicy>>;
      try {
        // No options: the operator, with the owner's authority, audited as system:cli.
        r = await applyPolicy(a.id, parsed.file, undefined, { dryRun });
      } catch (err) {
        // The apply's own problems (people and groups the account does not have) are placed on the file too.
        const problems = err instanceof HubError ? (err.extra?.problems as LocatedProblem[] | undefined) : undefined;
        if (problems === undefined) throw err;
        return refused(locateProblems(text, problems), file!);
      }
      const json = { changed: r.changed, dry_run: dryRun, revision: r.revision, diff: r.diff };
      if (!r.changed)
        return { json, text: `no change: the approval policy of ${a.slug} is revision ${r.revision} already` };
      const head = dryRun
        ? `dry run, nothing changed: applying would change the approval policy of ${a.slug} (revision ${r.revision}):`
        : `applied: the approval policy of ${a.slug} is now revision ${r.revision}:`;
      return { json, text: [head, ...diffLines(r.diff)].join("\n") };
    },
  },
  "policy test": {
    usage: "policy test <ask.json|-> --account <slug>",
    args: 1,
    async run([file], f, _lists, io) {
      const slug = account(f);
      const text = await readInput(file!, io);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (err) {
        throw new HubError("invalid_field", `${nameOf(file!)} is not JSON: ${(err as Error).message}`);
      }
      const { parseMessage } = await import("@ma2h/protocol/message");
      let message: ReturnType<typeof parseMessage>;
      try {
        message = parseMessage(body);
      } catch (err) {
        // The submit's own check (400 there); here the file is the input, not the command line.
        throw new HubError("invalid_field", `${nameOf(file!)} is not an MA2H message: ${(err as Error).message}`);
      }
      const agentId = message.agent.id;
      const { findAccount } = await import("../lib/principals/accounts");
      const a = await findAccount(slug);
      const { factsOf } = await import("../lib/policies/evaluate");
      const { readPolicy } = await import("../lib/policies/store");
      const policy = await readPolicy(a.id);
      // §9.1: a notify, and a message addressed with `to`, are outside the policy.
      if (factsOf(message, agentId) === null) {
        const why =
          message.type === "notify"
            ? "a notify asks no one"
            : "an addressed message (to) keeps §9.1's addressee default";
        const note = "agent id from the file's agent.id; at submit the Hub takes it from the agent's key";
        return {
          json: { agent: { id: agentId }, revision: policy.revision, governed: false, note },
          text: `${message.type} from ${agentId} against the approval policy of ${a.slug}, revision ${policy.revision}\n${note}\nnot governed by the approval policy: ${why}`,
        };
      }
      // The admin page's tester, on the same revision the header names (lib/policies/tester.ts).
      const { testPolicy } = await import("../lib/policies/tester");
      const { describeEscalation, describeQuorum } = await import("../lib/policies/quorum-words");
      const t = await testPolicy(a.id, { kind: "json", text }, policy.rules);
      const agent = { id: agentId, known: t.agentKnown };
      // The Hub takes the agent id from the submitting key (attested), never from the envelope.
      const note = `agent id from the file's agent.id; at submit the Hub takes it from the agent's key${
        t.agentKnown ? "" : `; ${agentId} is not an agent of ${a.slug}`
      }`;
      const head = `${message.type} from ${agentId} against the approval policy of ${a.slug}, revision ${policy.revision}\n${note}`;
      const evaluation = { routing: t.routing, matched: t.matched };
      const excluded = t.excluded.map((e) => ({ person: `human:${e.handle}`, reasons: e.reasons }));
      const eligible = t.eligible;
      const lines = [head];
      if (evaluation.routing === null)
        lines.push("no rule matches: the default policy (nothing is recorded; who may answer is as without a policy)");
      else {
        lines.push(`matching rules: ${evaluation.routing.rules.join(", ")}`);
        lines.push(
          `email answers: ${evaluation.routing.email_answers ? "yes" : "no (mail links to the signed-in item page)"}`,
        );
        if (evaluation.routing.quorum) lines.push(`quorum: ${describeQuorum(evaluation.routing.quorum)}`);
        if (evaluation.routing.escalation)
          lines.push(`escalation: ${describeEscalation(evaluation.routing.escalation)}`);
        if (eligible.length === 0)
          lines.push("nobody may answer: the Hub would refuse this submit (422 invalid_field)");
        else if (t.refusal !== null) lines.push(`the Hub would refuse this submit (422 invalid_field): ${t.refusal}`);
      }
      lines.push(`eligible: ${eligible.map((h) => `human:${h}`).join(", ") || "nobody"}`);
      if (excluded.length > 0) {
        lines.push("excluded:");
        for (const e of excluded) lines.push(`  ${e.person}: ${e.reasons.join("; ")}`);
      }
      return {
        json: {
          agent,
          revision: policy.revision,
          governed: true,
          matched: evaluation.matched,
          effective: evaluation.routing,
          eligible: eligible.map((h) => `human:${h}`),
          excluded,
          refusal: t.refusal,
          note,
        },
        text: lines.join("\n"),
      };
    },
  },
};
