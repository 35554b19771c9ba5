/**
 * How people and groups are named wherever a person picks one (groups, sponsors, and the approval
 * policies that route to them): `human:<handle>` as in `allowed_resolvers` (§9.1), `group:<name>`
 * for an account's group. Pure: the CLI, the admin pages and the services parse with these.
 */
import { HubError } from "@ma2h/protocol/errors";

/** A group's name: lower case, like a handle — it is read in policies and audit rows. */
export const GROUP_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
/** A seat's handle (lib/principals/users.ts checks the same when a seat is made). */
const HANDLE_PATTERN = /^[a-z0-9._-]{1,64}$/;
/** The longest description a group keeps (shown on the admin page). */
export const MAX_GROUP_DESCRIPTION = 200;

export type PersonOrGroup = { kind: "human"; handle: string } | { kind: "group"; name: string };

export function validateGroupName(name: string): string {
  if (!GROUP_NAME_PATTERN.test(name))
    throw new HubError(
      "invalid_field",
      `group name ${JSON.stringify(name)} is invalid: 1-63 characters of [a-z0-9._-], starting with a letter or digit`,
    );
  return name;
}

/** `group:<name>` → `<name>`; a bare name is taken as it is. */
export function groupNameOf(ref: string): string {
  return validateGroupName(ref.startsWith("group:") ? ref.slice("group:".length) : ref);
}

/** `human:<handle>` → `<handle>`; a bare handle is taken as it is. */
export function handleOf(ref: string): string {
  const handle = ref.startsWith("human:") ? ref.slice("human:".length) : ref;
  if (!HANDLE_PATTERN.test(handle))
    throw new HubError("invalid_field", `${JSON.stringify(ref)} is not a person: use human:<handle>`);
  return handle;
}

/** `human:<handle>` or `group:<name>`, nothing else (agents and `system:` actors are never sponsors). */
export function parsePersonOrGroup(ref: string): PersonOrGroup {
  if (ref.startsWith("human:")) return { kind: "human", handle: handleOf(ref) };
  if (ref.startsWith("group:")) return { kind: "group", name: groupNameOf(ref) };
  throw new HubError(
    "invalid_field",
    `${JSON.stringify(ref)} names neither a person nor a group: use human:<handle> or group:<name>`,
  );
}

export function refOf(p: PersonOrGroup): string {
  return p.kind === "human" ? `human:${p.handle}` : `group:${p.name}`;
}
