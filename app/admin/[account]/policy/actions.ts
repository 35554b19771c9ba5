"use server";
/**
 * The policy page's actions: check a policy file (a dry run: its diff, nothing changed), apply it,
 * and test an ask against the applied policy or a draft. In `adminAction` (same origin, the session's
 * owner/admin seat in the form's account, re-checked on every call) → the verbs of lib/policies/ the
 * CLI calls, with the seat's role: `applyPolicy` refuses an admin, dry run included, so a forged post
 * changes nothing. A file with problems is refused whole, each problem on its line and column.
 */
import { revalidatePath } from "next/cache";
import { isHubError } from "@ma2h/protocol/errors";
import { adminAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import type { Rule } from "@/lib/policies/model";
import { applyPolicy, type PolicyDiff, type PolicyProblem } from "@/lib/policies/store";
import { type AskSource, type PolicyTest, testPolicy } from "@/lib/policies/tester";
import { formatProblems, locateProblems, parsePolicyYaml } from "@/lib/policies/yaml";

/** A refusal's problems, one `policy:<line>:<col>: <message>` line each. */
export interface Problems {
  problems?: string;
}

export interface EditDone {
  message: string;
  dryRun: boolean;
  changed: boolean;
  diff: PolicyDiff;
  revision: number;
}
export type EditState = ActionState<EditDone, Problems>;

export interface TestDone {
  message: string;
  against: "applied" | "draft";
  result: PolicyTest;
  /** The groups the draft lists: the tester reads the account's groups as they are (applied: they change). */
  draftGroups: string[];
}
export type TestState = ActionState<TestDone, Problems>;

export async function checkPolicyAction(_prev: EditState, form: FormData): Promise<EditState> {
  return edit(form, true);
}

export async function applyPolicyAction(_prev: EditState, form: FormData): Promise<EditState> {
  return edit(form, false);
}

function edit(form: FormData, dryRun: boolean): Promise<EditState> {
  return adminAction<EditDone, Problems>(field(form, "account"), async ({ seat }) => {
    const text = field(form, "yaml");
    const refused = dryRun ? "The file has problems" : "Not applied: the file has problems; nothing changed";
    const parsed = parsePolicyYaml(text);
    if (!parsed.ok) return { ok: false, error: `${refused}.`, problems: formatProblems(parsed.problems) };
    try {
      const r = await applyPolicy(
        seat.accountId,
        parsed.file,
        { actor: seat.actor, accountId: seat.accountId, role: seat.role },
        { dryRun },
      );
      if (!dryRun && r.changed) revalidatePath(`/admin/${seat.slug}/policy`);
      const message = dryRun
        ? r.changed
          ? `Checked: applying this file changes the policy (now revision ${r.revision}). Nothing was changed.`
          : `Checked: this file is the policy as applied (revision ${r.revision}); applying it changes nothing.`
        : r.changed
          ? `Applied: revision ${r.revision}.`
          : `Nothing to apply: this file is the policy as applied (revision ${r.revision}).`;
      return { ok: true, message, dryRun, ...r };
    } catch (err) {
      // The apply's own checks (people and groups that do not exist) name paths into the file.
      const problems = isHubError(err) ? (err.extra.problems as PolicyProblem[] | undefined) : undefined;
      if (!Array.isArray(problems)) throw err;
      return { ok: false, error: `${refused}.`, problems: formatProblems(locateProblems(text, problems)) };
    }
  });
}

export async function testPolicyAction(_prev: TestState, form: FormData): Promise<TestState> {
  return adminAction<TestDone, Problems>(field(form, "account"), async ({ seat }) => {
    let source: AskSource;
    if (field(form, "source") === "stored") {
      const id = field(form, "ask");
      if (!id) return { ok: false, error: "Pick an ask or task to test." };
      source = { kind: "stored", id };
    } else {
      const text = field(form, "json");
      if (!text.trim()) return { ok: false, error: "Paste a message envelope (JSON) to test." };
      source = { kind: "json", text };
    }
    const against = field(form, "against") === "draft" ? "draft" : "applied";
    let rules: Rule[] | undefined;
    let draftGroups: string[] = [];
    if (against === "draft") {
      const parsed = parsePolicyYaml(field(form, "yaml"));
      if (!parsed.ok)
        return {
          ok: false,
          error: "The draft has problems: fix them, or test against the applied policy.",
          problems: formatProblems(parsed.problems),
        };
      rules = parsed.file.rules;
      draftGroups = Object.keys(parsed.file.groups ?? {});
    }
    const result = await testPolicy(seat.accountId, source, rules);
    const n = result.matched.length;
    const message =
      n === 0
        ? "No rule matches: the default policy applies."
        : `${n} rule${n > 1 ? "s" : ""} match${n > 1 ? "" : "es"}.`;
    return { ok: true, message, against, result, draftGroups };
  });
}
