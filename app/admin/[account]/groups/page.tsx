import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { MAX_CLAIM_VALUE } from "@/lib/groups/claims";
import { listGroups, type GroupInfo } from "@/lib/groups/groups";
import { MAX_GROUP_DESCRIPTION } from "@/lib/principals/names";
import { adminPage } from "@/lib/next/admin-page";
import { listMembers } from "@/lib/principals/members";
import {
  addGroupMappingAction,
  addGroupMemberAction,
  createGroupAction,
  deleteGroupAction,
  removeGroupMappingAction,
  removeGroupMemberAction,
} from "./actions";

export const dynamic = "force-dynamic";

const SOURCE_LABEL = { manual: "manual", idp: "from identity provider" } as const;

/**
 * The account's groups (`group:<name>`): their people — put there by hand or by the identity
 * provider's groups claim at sign-in — and the claim values mapped to each (docs/groups.md). Owners
 * change them; admins see the same page without a form (the verbs refuse them too).
 */
export default async function GroupsPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const { seat } = await adminPage(account, `/admin/${encodeURIComponent(account)}/groups`);
  const isOwner = seat.role === "owner";
  const [groups, people] = await Promise.all([
    listGroups(seat.accountId),
    isOwner ? listMembers(seat.accountId) : Promise.resolve([]),
  ]);
  const handles = people.map((p) => p.handle);
  return (
    <main>
      <section className="panel">
        <h2>Groups</h2>
        <p className="hint">
          Named groups of the people of {seat.slug}, written <code>group:&lt;name&gt;</code>. A group can sponsor an
          agent (on the agent&apos;s page). People are put in a group by an owner here, or by your identity provider: at
          each sign-in, a person whose groups claim carries one of a group&apos;s mapped values is put in it, and taken
          out once it no longer does. A change in the identity provider applies at the person&apos;s next sign-in.
        </p>
        {!isOwner && (
          <p className="muted" data-testid="groups-owner-only">
            Only an owner of {seat.slug} can change groups.
          </p>
        )}
        {groups.length === 0 && (
          <p className="empty" data-testid="groups-empty">
            No groups yet.
          </p>
        )}
      </section>
      {groups.map((g) => (
        <Group key={g.id} group={g} slug={seat.slug} isOwner={isOwner} handles={handles} />
      ))}
      {isOwner && (
        <section className="panel">
          <h2>Create a group</h2>
          <p className="hint">
            A name of lower-case letters, digits, <code>.</code>, <code>_</code> and <code>-</code> (e.g.{" "}
            <code>platform-team</code>); the description is optional.
          </p>
          <ActionForm
            action={createGroupAction}
            hidden={{ account: seat.slug }}
            submit="Create group"
            testId="create-group"
          >
            <label>
              Name{" "}
              <input
                name="name"
                required
                maxLength={63}
                pattern="[a-z0-9][a-z0-9._\-]{0,62}"
                autoComplete="off"
                data-testid="group-name-input"
              />
            </label>
            <label>
              Description{" "}
              <input
                name="description"
                maxLength={MAX_GROUP_DESCRIPTION}
                autoComplete="off"
                data-testid="group-description-input"
              />
            </label>
          </ActionForm>
        </section>
      )}
    </main>
  );
}

function Group({
  group: g,
  slug,
  isOwner,
  handles,
}: {
  group: GroupInfo;
  slug: string;
  isOwner: boolean;
  handles: string[];
}) {
  const hidden = { account: slug, group: g.name };
  const inGroup = new Set(g.members.map((m) => m.handle));
  const addable = handles.filter((h) => !inGroup.has(h));
  return (
    <section className="panel" data-testid="group" data-group={g.name}>
      <h2>
        <code>group:{g.name}</code>
      </h2>
      {g.description && <p data-testid="group-description">{g.description}</p>}
      <p className="muted">
        Created <When at={g.createdAt} />
      </p>
      <h3>Members</h3>
      {g.members.length === 0 ? (
        <p className="muted">Nobody yet.</p>
      ) : (
        <table className="admin-table" data-testid="group-members">
          <thead>
            <tr>
              <th>Person</th>
              <th>Source</th>
              {isOwner && <th />}
            </tr>
          </thead>
          <tbody>
            {g.members.map((m) => (
              <tr key={m.handle} data-testid="group-member" data-handle={m.handle} data-source={m.source}>
                <td>
                  <code>human:{m.handle}</code>
                </td>
                <td>{SOURCE_LABEL[m.source]}</td>
                {isOwner && (
                  <td>
                    <ActionForm
                      action={removeGroupMemberAction}
                      hidden={{ ...hidden, person: `human:${m.handle}` }}
                      submit="Remove"
                      danger
                      testId={`remove-member-${g.name}-${m.handle}`}
                      className="inline-form"
                    />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {isOwner &&
        (addable.length === 0 ? (
          <p className="muted">Everyone in {slug} is in this group.</p>
        ) : (
          <ActionForm action={addGroupMemberAction} hidden={hidden} submit="Add" testId={`add-member-${g.name}`}>
            <label>
              Person{" "}
              <select name="person" required data-testid={`add-member-${g.name}-person`}>
                {addable.map((h) => (
                  <option key={h} value={`human:${h}`}>
                    human:{h}
                  </option>
                ))}
              </select>
            </label>
          </ActionForm>
        ))}
      <h3>From the identity provider</h3>
      <p className="hint">
        The groups-claim values that put a person in this group at sign-in: the group&apos;s name in Keycloak or Okta,
        its object id in Microsoft Entra ID.
      </p>
      {g.claimValues.length === 0 ? (
        <p className="muted" data-testid="group-no-mappings">
          None: people are put in this group by hand only.
        </p>
      ) : (
        <ul className="refs" data-testid="group-mappings">
          {g.claimValues.map((v) => (
            <li key={v} data-testid="group-mapping" data-value={v}>
              <code>{v}</code>
              {isOwner && (
                <ActionForm
                  action={removeGroupMappingAction}
                  hidden={{ ...hidden, claim_value: v }}
                  submit="Remove"
                  danger
                  testId={`remove-mapping-${g.name}-${v}`}
                  className="inline-form"
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {isOwner && (
        <>
          <ActionForm
            action={addGroupMappingAction}
            hidden={hidden}
            submit="Add mapping"
            testId={`add-mapping-${g.name}`}
          >
            <label>
              Claim value{" "}
              <input
                name="claim_value"
                required
                maxLength={MAX_CLAIM_VALUE}
                autoComplete="off"
                data-testid={`add-mapping-${g.name}-value`}
              />
            </label>
          </ActionForm>
          <h3>Delete</h3>
          <ActionForm
            action={deleteGroupAction}
            hidden={hidden}
            submit="Delete group"
            danger
            confirm={`Delete group:${g.name}? Its members leave it, its mappings go, and it stops sponsoring any agent.`}
            testId={`delete-group-${g.name}`}
            className="inline-form"
          />
        </>
      )}
    </section>
  );
}
