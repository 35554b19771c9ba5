/**
 * The `ma2h-hub` admin commands: each turns parsed arguments into one domain call
 * (lib/principals) and shapes its result as the documented JSON object plus a readable line. Each
 * command imports its domain module when it runs, so `--help` and a usage error load no database
 * client.
 */
import type { AgentRef } from "../lib/principals/agents";
import type { BindingInfo } from "../lib/principals/bindings";
import { usageError, type Command, type Flags } from "./command";
import { DELIVERY_COMMANDS } from "./delivery-commands";
import { SECRETS_COMMANDS } from "./secrets-commands";
import { AUDIT_COMMANDS } from "./audit-commands";
import { BACKUP_COMMANDS } from "./backup-commands";
import { checkedSponsors, GROUP_COMMANDS, SPONSOR_COMMANDS } from "./group-commands";
import { POLICY_COMMANDS } from "./policy-commands";
import { DELEGATION_COMMANDS } from "./delegation-commands";
import { RULE_COMMANDS } from "./rule-commands";

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (v === undefined || v === "") throw usageError(`--${name} is required`);
  return v;
}

function agentRef(agentId: string, flags: Flags): AgentRef {
  return flags.account ? { agentId, accountSlug: flags.account } : { agentId };
}

/** `--allow a,b`: the ids, trimmed; `--allow ''` is the empty list (restricted to no agent). */
function senderList(flag: string): string[] {
  if (flag.trim() === "") return [];
  const ids = flag.split(",").map((id) => id.trim());
  if (ids.includes("")) throw usageError("--allow: an empty agent id (a stray comma?)");
  return ids;
}

const bindingJson = (b: BindingInfo) => ({
  id: b.id,
  agent: b.agentId,
  origin: b.origin,
  path_prefix: b.pathPrefix,
  secret_refs: b.secretRefs,
  standard_webhooks: b.standardWebhooks,
});
const bindingText = (b: BindingInfo) =>
  `${b.id}  ${b.agentId} (${b.accountSlug})  ${b.origin}  prefix ${b.pathPrefix}  refs ${b.secretRefs.join(",")}` +
  (b.standardWebhooks ? "  standard-webhooks" : "");

export const COMMANDS: Record<string, Command> = {
  "account create": {
    usage: "account create <slug>",
    args: 1,
    async run([slug]) {
      const { createAccount } = await import("../lib/principals/accounts");
      const a = await createAccount(slug!);
      return { json: { account: { slug: a.slug } }, text: `account ${a.slug} created` };
    },
  },
  "account set": {
    usage:
      "account set <slug> --agent-session-visibility on|off | --inter-agent on|off | --email-answer-sensitive-without-sign-in on|off",
    args: 1,
    async run([slug], f) {
      // One setting per call: each has its own `changed` and `effective`.
      const given = ["agent-session-visibility", "inter-agent", "email-answer-sensitive-without-sign-in"].filter(
        (n) => f[n] !== undefined,
      );
      if (given.length !== 1)
        throw usageError(
          "give one of --agent-session-visibility on|off, --inter-agent on|off or --email-answer-sensitive-without-sign-in on|off",
        );
      const name = given[0]!;
      const choice = f[name];
      if (choice !== "on" && choice !== "off") throw usageError(`--${name} must be on or off`);
      const accounts = await import("../lib/principals/accounts");
      if (name === "email-answer-sensitive-without-sign-in") {
        // The operator acts as an owner would, audited as the CLI (lib/principals/admin-scope.ts).
        const account = await accounts.findAccount(slug!);
        const { setEmailAnswerSensitiveWithoutSignIn } = await import("../lib/notifications/settings-store");
        const { accountNotificationSettings } = await import("../lib/notifications/settings");
        const { actorOf } = await import("../lib/principals/admin-scope");
        const r = await setEmailAnswerSensitiveWithoutSignIn(
          { accountId: account.id, role: "owner", actor: actorOf(undefined) },
          choice === "on",
        );
        // It relaxes only what the account's email answering allows at all.
        const base = (await accountNotificationSettings(account.id)).emailAnswerWithoutSignIn;
        const on = choice === "on";
        const said = on
          ? "high/urgent and restricted asks may be answered from an email without signing in"
          : "high/urgent and restricted asks need sign-in to answer from an email";
        return {
          json: {
            account: {
              slug: account.slug,
              email_answer_sensitive_without_sign_in: on,
              changed: r.changed,
              effective: on && base,
            },
          },
          text:
            `${r.changed ? "" : "unchanged: "}in ${account.slug}, ${said}` +
            (on && !base ? " (no effect: answering from an email without signing in is off for the account)" : ""),
        };
      }
      const { interAgentSettings, sessionLimits } = await import("../lib/env");
      if (name === "inter-agent") {
        const r = await accounts.setInterAgentEnabled(slug!, choice === "on");
        // §8.0: the account's opt-in takes effect only beneath the deployment ceiling (MA2H_INTER_AGENT).
        const ceiling = interAgentSettings().enabled;
        const said = r.enabled ? "may message each other" : "may not message each other";
        return {
          json: {
            account: { slug: r.slug, inter_agent: r.enabled, changed: r.changed, effective: r.enabled && ceiling },
          },
          text:
            `${r.changed ? "" : "unchanged: "}agents of ${r.slug} ${said}` +
            (r.enabled && !ceiling ? " (no effect: MA2H_INTER_AGENT is off on this Hub)" : ""),
        };
      }
      const r = await accounts.setAgentSessionVisibility(slug!, choice === "on");
      // §16.4: the grant takes effect only beneath the deployment ceiling.
      const ceiling = sessionLimits().agentListVisibility;
      const said = r.enabled ? "may list each other's sessions" : "see only their own sessions";
      return {
        json: {
          account: {
            slug: r.slug,
            agent_session_visibility: r.enabled,
            changed: r.changed,
            effective: r.enabled && ceiling,
          },
        },
        text:
          `${r.changed ? "" : "unchanged: "}agents of ${r.slug} ${said}` +
          (r.enabled && !ceiling ? " (no effect: MA2H_SESSION_AGENT_LIST_VISIBILITY is off on this Hub)" : ""),
      };
    },
  },
  "user add": {
    usage: "user add <email> --account <slug> --handle <handle> --role <owner|admin|member|viewer>",
    args: 1,
    async run([email], f) {
      const { addUser } = await import("../lib/principals/users");
      const u = await addUser(email!, need(f, "account"), need(f, "handle"), need(f, "role"));
      return {
        json: { user: { email: u.email, handle: u.handle, role: u.role } },
        text: `${u.email} added to ${u.accountSlug} as ${u.handle} (${u.role})`,
      };
    },
  },
  "user role": {
    usage: "user role <handle> --account <slug> --role <owner|admin|member|viewer>",
    args: 1,
    async run([handle], f) {
      const slug = need(f, "account");
      const { changeRole, memberByHandle } = await import("../lib/principals/members");
      const m = await memberByHandle(slug, handle!);
      const r = await changeRole(m.accountId, m.membershipId, need(f, "role"));
      return {
        json: { user: { handle: r.handle, role: r.role, changed: r.changed } },
        text: `${r.handle} is ${r.role} in ${slug}`,
      };
    },
  },
  "user remove": {
    usage: "user remove <handle> --account <slug>",
    args: 1,
    async run([handle], f) {
      const slug = need(f, "account");
      const { memberByHandle, removeMember } = await import("../lib/principals/members");
      const m = await memberByHandle(slug, handle!);
      const r = await removeMember(m.accountId, m.membershipId);
      return {
        json: { user: { handle: r.handle, removed: true, sessions_ended: r.sessionsEnded } },
        text: `${r.handle} removed from ${slug}; ${r.sessionsEnded} session(s) ended`,
      };
    },
  },
  ...DELEGATION_COMMANDS,
  ...RULE_COMMANDS,
  ...GROUP_COMMANDS,
  "token create": {
    usage: "token create --user <email>",
    args: 0,
    async run(_, f) {
      const { createToken } = await import("../lib/principals/tokens");
      const t = await createToken(need(f, "user"));
      return { json: { token: t.token, id: t.id }, text: `token ${t.id} (shown once): ${t.token}` };
    },
  },
  "token revoke": {
    usage: "token revoke <token-id>",
    args: 1,
    async run([id]) {
      const { revokeToken } = await import("../lib/principals/tokens");
      const t = await revokeToken(id!);
      return { json: { token: t }, text: `token ${t.id} revoked` };
    },
  },
  "agent create": {
    usage: "agent create <agent.id> --account <slug> [--sponsor human:<handle>|group:<name>]…",
    args: 1,
    async run([agentId], f, lists) {
      const slug = need(f, "account");
      const { createAgent, validateAgentId } = await import("../lib/principals/agents");
      validateAgentId(agentId!);
      const sponsors = await checkedSponsors(slug, lists.sponsor ?? []);
      const r = await createAgent(agentId!, slug, undefined, sponsors);
      const by = r.sponsors.length > 0 ? `; sponsored by ${r.sponsors.join(", ")}` : "";
      return {
        json: { agent: { id: r.agent.agentId, sponsors: r.sponsors }, key: r.key, api_key: r.api_key },
        text: `agent ${r.agent.agentId} created in ${r.agent.accountSlug}${by}; key ${r.key.id} (shown once): ${r.api_key}`,
      };
    },
  },
  "agent mailbox": {
    usage: "agent mailbox purge <agent.id> [--account <slug>] (--from <agent.id> | --all)",
    args: 2,
    async run([verb, agentId], f) {
      // Ends live entries at once rather than at the retention horizon: a peer's flood, or everything.
      if (verb !== "purge") throw usageError(`unknown command: agent mailbox ${verb}`);
      if ((f.from === undefined) === (f.all === undefined)) throw usageError("give one of --from <agent.id> or --all");
      const { purgeMailbox } = await import("../lib/mailbox/purge");
      const r = await purgeMailbox(agentRef(agentId!, f), f.from !== undefined ? { from: f.from } : { all: true });
      return {
        json: { mailbox: r },
        text: `${r.ended} live ${r.ended === 1 ? "entry" : "entries"} of ${r.agent.id} (${r.agent.account})${r.from === null ? "" : ` from ${r.from}`} ended`,
      };
    },
  },
  "agent senders": {
    usage: "agent senders <agent.id> [--account <slug>] [--allow <agent.id>[,<agent.id>…] | --any]",
    args: 1,
    async run([agentId], f) {
      // §13.5: who may address this agent. Neither flag prints the policy; `--allow ''` admits no agent.
      if (f.allow !== undefined && f.any !== undefined) throw usageError("give --allow or --any, not both");
      const policy =
        f.any !== undefined ? { any: true as const } : f.allow !== undefined ? { allow: senderList(f.allow) } : null;
      const { resolveAgent } = await import("../lib/principals/agents");
      const { describeSenders, senderAllowlistOf, setSenderAllowlist } = await import(
        "../lib/principals/sender-allowlist"
      );
      const agent = await resolveAgent(agentRef(agentId!, f));
      const r = policy
        ? await setSenderAllowlist(undefined, agent.accountId, agent.agentId, policy)
        : await senderAllowlistOf(agent.accountId, agent.agentId);
      const changed = "changed" in r ? r.changed : undefined;
      const who = describeSenders(r.senders);
      return {
        json: {
          agent: {
            id: agent.agentId,
            account: agent.accountSlug,
            senders: r.senders,
            ...(changed === undefined ? {} : { changed }),
            unknown: r.unknown,
          },
        },
        text:
          `${changed === false ? "unchanged: " : ""}${agent.agentId} (${agent.accountSlug}) may be messaged by ${who}` +
          (r.unknown.length > 0 ? ` (not agents of ${agent.accountSlug}: ${r.unknown.join(", ")})` : ""),
      };
    },
  },
  ...SPONSOR_COMMANDS,
  "key list": {
    usage: "key list <agent.id> [--account <slug>]",
    args: 1,
    async run([agentId], f) {
      // A read on owned statements on the pool: no Prisma client loads (lib/principals/key-list.ts).
      const { listKeys } = await import("../lib/principals/key-list");
      const keys = (await listKeys(agentRef(agentId!, f))).map((k) => ({
        id: k.id,
        created_at: k.createdAt.toISOString(),
        revoked_at: k.revokedAt?.toISOString() ?? null,
      }));
      const text = keys.map(
        (k) => `${k.id}  created ${k.created_at}  ${k.revoked_at ? `revoked ${k.revoked_at}` : "active"}`,
      );
      return { json: { keys }, text: text.join("\n") || "no keys" };
    },
  },
  "key rotate": {
    usage: "key rotate <agent.id> [--account <slug>]",
    args: 1,
    async run([agentId], f) {
      const { rotateKey } = await import("../lib/principals/api-keys");
      const r = await rotateKey(agentRef(agentId!, f));
      return { json: r, text: `key ${r.key.id} added (shown once): ${r.api_key}; older keys stay valid until revoked` };
    },
  },
  "key revoke": {
    usage: "key revoke <key-id>",
    args: 1,
    async run([id]) {
      const { revokeKey } = await import("../lib/principals/api-keys");
      const k = await revokeKey(id!);
      return { json: { key: k }, text: `key ${k.id} revoked` };
    },
  },
  "binding add": {
    usage:
      "binding add --agent <agent.id> [--account <slug>] --origin <scheme://host[:port]> [--path-prefix /p] --secret-ref <ref> --secret <value|->",
    args: 0,
    async run(_, f) {
      // An origin another account binds needs its proof served (docs/security.md); the fetch is delivery's.
      const { addBindingWithProof } = await import("../lib/delivery/origin-proof");
      const b = await addBindingWithProof({
        agentRef: agentRef(need(f, "agent"), f),
        origin: need(f, "origin"),
        pathPrefix: f["path-prefix"],
        secretRef: need(f, "secret-ref"),
        secret: need(f, "secret"),
      });
      return { json: { binding: bindingJson(b) }, text: `binding added: ${bindingText(b)}` };
    },
  },
  "binding list": {
    usage: "binding list --agent <agent.id> [--account <slug>]",
    args: 0,
    async run(_, f) {
      // Like key list: no Prisma client loads (lib/principals/binding-list.ts).
      const { listBindings } = await import("../lib/principals/binding-list");
      const list = await listBindings(agentRef(need(f, "agent"), f));
      return { json: { bindings: list.map(bindingJson) }, text: list.map(bindingText).join("\n") || "no bindings" };
    },
  },
  "binding add-secret": {
    usage: "binding add-secret <binding-id> --secret-ref <ref> --secret <value|->",
    args: 1,
    async run([id], f) {
      const { addBindingSecret } = await import("../lib/principals/bindings");
      const r = await addBindingSecret(id!, need(f, "secret-ref"), need(f, "secret"));
      return {
        json: { secret: { binding_id: r.bindingId, ref: r.ref } },
        text: `secret ${r.ref} added to binding ${r.bindingId}`,
      };
    },
  },
  "binding remove-secret": {
    usage: "binding remove-secret <binding-id> --secret-ref <ref>",
    args: 1,
    async run([id], f) {
      const { removeBindingSecret } = await import("../lib/principals/bindings");
      const r = await removeBindingSecret(id!, need(f, "secret-ref"));
      return {
        json: { secret: { binding_id: r.bindingId, ref: r.ref, removed: true } },
        text: `secret ${r.ref} removed from binding ${r.bindingId}; pushes naming it stop`,
      };
    },
  },
  "binding webhooks": {
    usage: "binding webhooks <binding-id> on|rotate|off",
    args: 2,
    async run([id, change]) {
      if (change !== "on" && change !== "rotate" && change !== "off")
        throw usageError("binding webhooks: the second argument is on, rotate or off");
      const { changeStandardWebhooks } = await import("../lib/delivery/binding-webhooks");
      const r = await changeStandardWebhooks(id!, change);
      return {
        json: { binding: { id: r.bindingId, standard_webhooks: r.enabled }, ...(r.secret ? { secret: r.secret } : {}) },
        text: r.secret
          ? `Standard Webhooks ${change === "on" ? "on" : "secret rotated"} for binding ${r.bindingId}. ` +
            `Its secret, shown only now:\n${r.secret}`
          : `Standard Webhooks off for binding ${r.bindingId}`,
      };
    },
  },
  "binding revoke": {
    usage: "binding revoke <binding-id>",
    args: 1,
    async run([id]) {
      const { revokeBinding } = await import("../lib/principals/bindings");
      const b = await revokeBinding(id!);
      return { json: { binding: b }, text: `binding ${b.id} revoked` };
    },
  },
  ...DELIVERY_COMMANDS,
  ...SECRETS_COMMANDS,
  ...AUDIT_COMMANDS,
  ...BACKUP_COMMANDS,
  ...POLICY_COMMANDS,
};

export const USAGE = [
  "usage: ma2h-hub <command> [--json]      ma2h-hub --version [--json]",
  "",
  "Reads the Hub's DATABASE_URL and AUTH_SECRET. With --json, stdout carries exactly one JSON object.",
  "Commands that name an agent take --account <slug>, required when the id exists in several accounts.",
  "",
  ...Object.values(COMMANDS).map((c) => `  ma2h-hub ${c.usage}`),
  "",
  "  --secret - reads the secret from stdin (keeps it out of the process list).",
  "  People are human:<handle>, groups group:<name> (or the bare name where only a group fits);",
  "  --sponsor, --add and --remove may be given more than once.",
  "  policy apply and policy test read stdin for the file -; policy apply --dry-run changes nothing.",
].join("\n");
