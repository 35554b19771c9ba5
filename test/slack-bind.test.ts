/**
 * Slack "who clicked" (docs/notifications.md "Slack: who clicked"): a bind link binds the Slack
 * user to the person signed in to the Hub who confirms it — nobody else. The page over HTTP on the
 * built web (sign-in first, GET changes nothing, POST binds, spent / expired / cross-site / no seat /
 * bound to someone else refused and nothing changes); removal and a removed seat in-process.
 */
// covers: lib/notifications/slack/bind-links.ts, lib/notifications/slack/bindings.ts, lib/notifications/slack/bind-preview.ts, app/slack/bind/[token]/route.ts, app/slack/bind/[token]/view.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { removeMember } from "../lib/principals/members";
import { createWebSession, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { BIND_LINK_TTL_MS, mintBindLink, redeemBindLink } from "../lib/notifications/slack/bind-links";
import { slackIdentitiesOf, slackPersonFor, unbindSlackIdentity } from "../lib/notifications/slack/bindings";
import { useHubFixture } from "./support/hub-fixture";

const TEAM = "T0ACME";
const hub = useHubFixture({
  accounts: {
    acme: {
      agents: ["bot/acme"],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "bob", role: "member" },
        { handle: "carol", role: "member" },
        { handle: "dave", role: "member" },
      ],
    },
    globex: { agents: ["bot/globex"], humans: [{ handle: "gina", role: "owner" }] },
  },
  setup: async () => {
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    const now = new Date();
    // The sealed values are never opened on this path; the page needs the workspace's name.
    await db().slackConnection.create({
      data: {
        accountId: acme.id,
        teamId: TEAM,
        teamName: "Acme Workspace",
        botTokenSealed: "unused",
        signingSecretSealed: "unused",
        connectedBy: "human:olga",
        createdAt: now,
        updatedAt: now,
      },
    });
  },
});

const userId = async (handle: string, slug = "acme") =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@${slug}.test` } })).id;
const acmeId = async () => (await db().account.findUniqueOrThrow({ where: { slug: "acme" } })).id;

/** A bind link for a Slack user of acme's workspace, as the interactions endpoint mints it. */
async function link(
  slackUserId: string,
  opts: { teamId?: string; at?: Date; slackUserName?: string; teamDomain?: string } = {},
): Promise<string> {
  const url = await mintBindLink(
    {
      accountId: await acmeId(),
      teamId: opts.teamId ?? TEAM,
      slackUserId,
      slackUserName: opts.slackUserName,
      teamDomain: opts.teamDomain,
    },
    hub.url,
    opts.at ?? new Date(),
  );
  return new URL(url).pathname;
}

async function cookieOf(handle: string, slug = "acme"): Promise<string> {
  const token = `sess-${handle}-${Math.random().toString(36).slice(2)}`;
  await createWebSession(await userId(handle, slug), token, new Date(Date.now() + 3_600_000));
  return `${SESSION_COOKIE_NAMES[1]}=${token}`;
}

async function open(path: string, cookie?: string) {
  const res = await fetch(`${hub.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
  const html = await res.text();
  return { status: res.status, html, state: /data-state="([a-z_]+)"/.exec(html)?.[1], res };
}

/** The page's own form POST: a browser sends Origin null (no-referrer) and Sec-Fetch-Site same-origin. */
async function confirm(path: string, cookie: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${hub.url}${path}`, {
    method: "POST",
    headers: { cookie, origin: "null", "sec-fetch-site": "same-origin", ...headers },
    redirect: "manual",
  });
  const html = await res.text();
  return { status: res.status, html, state: /data-state="([a-z_]+)"/.exec(html)?.[1] };
}

const bindAudits = () => db().auditEvent.findMany({ where: { event: "slack.user_bound" }, orderBy: { id: "asc" } });

describe("the bind page", () => {
  it("sends a signed-out browser to sign in with the page as the way back; a GET binds nothing", async () => {
    const path = await link("U0BOB");
    const out = await open(path);
    expect(out.status).toBe(303);
    const to = new URL(out.res.headers.get("location") ?? "", hub.url);
    expect([to.pathname, to.searchParams.get("callbackUrl")]).toEqual(["/signin", path]);

    const bob = await cookieOf("bob");
    for (let i = 0; i < 2; i++) {
      const shown = await open(path, bob);
      expect([shown.status, shown.state]).toEqual([200, "ready"]);
      expect(shown.res.headers.get("cache-control")).toBe("no-store");
      expect(shown.res.headers.get("referrer-policy")).toBe("no-referrer");
      // The confirmation names the Slack user, the workspace, the person and the account.
      expect(shown.html).toContain("Slack user <code>U0BOB</code> of workspace");
      expect(shown.html).toContain("<strong>Acme Workspace</strong> will answer as you (bob@acme.test)");
      expect(shown.html).toContain("account\n<strong>acme</strong>");
      expect(shown.html).toContain("Only continue if that Slack user is you.");
    }
    expect(await slackPersonFor(await acmeId(), "U0BOB")).toBeNull();
    expect(await bindAudits()).toEqual([]);
    const row = await db().slackBindToken.findFirstOrThrow({ where: { slackUserId: "U0BOB" } });
    expect(row.usedAt).toBeNull();
  });

  it("names the Slack user and the workspace as the signed click gave them, escaped, beside the ids", async () => {
    const path = await link("U0BOBBY", { slackUserName: "bob <b>smith</b>\u202e", teamDomain: "acme-hq" });
    const bob = await cookieOf("bob");
    const shown = await open(path, bob);
    expect([shown.status, shown.state]).toEqual([200, "ready"]);
    const name = "@bob &#60;b&#62;smith&#60;/b&#62;</strong>";
    expect(shown.html).toContain(
      `<dd><strong data-testid="slack-bind-user-name">${name} (<code data-testid="slack-bind-user">U0BOBBY</code>)</dd>`,
    );
    expect(shown.html).toContain(`Slack user <strong>${name} (<code>U0BOBBY</code>) of workspace`);
    expect(shown.html).toContain('<span data-testid="slack-bind-team-domain">acme-hq.slack.com</span>');
    expect(shown.html).not.toContain("<b>smith");
    expect(shown.html).not.toContain("\u202e");
    // The result page after Confirm names them the same way.
    const done = await confirm(path, bob);
    expect([done.status, done.state]).toEqual([200, "bound"]);
    expect(done.html).toContain(name);
    const bound = await db().slackIdentity.findFirstOrThrow({ where: { slackUserId: "U0BOBBY" } });
    expect(bound.userId).toBe(await userId("bob"));
    await unbindSlackIdentity(bound.userId, bound.id, new Date()); // the later tests bind bob afresh
  });

  it("a POST binds exactly the signed-in person, once; the spent link is refused", async () => {
    const path = await link("U0CAROL");
    const carol = await cookieOf("carol");
    // A cross-site POST riding carol's cookie changes nothing and leaves the link usable.
    const forged = await confirm(path, carol, { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect([forged.status, forged.state]).toEqual([403, "cross_site"]);
    expect(await slackPersonFor(await acmeId(), "U0CAROL")).toBeNull();

    const done = await confirm(path, carol);
    expect([done.status, done.state]).toEqual([200, "bound"]);
    expect(await slackPersonFor(await acmeId(), "U0CAROL")).toBe(await userId("carol"));
    expect(await db().slackIdentity.count({ where: { slackUserId: "U0CAROL" } })).toBe(1);

    // Spent: a second POST (by carol, or anyone) binds nothing.
    const dave = await cookieOf("dave");
    for (const who of [carol, dave]) {
      const again = await confirm(path, who);
      expect([again.status, again.state]).toEqual([410, "used"]);
    }
    expect(await slackPersonFor(await acmeId(), "U0CAROL")).toBe(await userId("carol"));
    expect((await slackIdentitiesOf(await userId("dave"))).length).toBe(0);

    // Audited in the account's trail (as human:carol) and carol's own stream; never the token.
    const token = path.split("/").pop() as string;
    const rows = (await bindAudits()).filter((r) => JSON.stringify(r.detail).includes("U0CAROL"));
    expect(rows.map((r) => [r.accountId !== null, r.userId !== null, r.actor]).sort()).toEqual(
      [
        [false, true, `user:${await userId("carol")}`],
        [true, false, "human:carol"],
      ].sort(),
    );
    for (const r of rows) {
      expect(r.detail).toMatchObject({ team_id: TEAM, slack_user_id: "U0CAROL" });
      expect(JSON.stringify(r.detail)).not.toContain(token);
    }
  });

  it("an expired link, a link of another workspace and a person without a seat are refused", async () => {
    const stale = await link("U0OLD", { at: new Date(Date.now() - BIND_LINK_TTL_MS - 1000) });
    const bob = await cookieOf("bob");
    expect((await open(stale, bob)).state).toBe("expired");
    expect(await confirm(stale, bob)).toMatchObject({ status: 410, state: "expired" });

    const otherTeam = await link("U0ELSE", { teamId: "T0OTHER" });
    expect(await confirm(otherTeam, bob)).toMatchObject({ status: 409, state: "not_connected" });

    const path = await link("U0GINA");
    const gina = await cookieOf("gina", "globex");
    const shown = await open(path, gina);
    expect([shown.status, shown.state]).toEqual([403, "no_seat"]);
    expect(shown.html).not.toContain("acme");
    expect(await confirm(path, gina)).toMatchObject({ status: 403, state: "no_seat" });

    const unknown = await confirm(`/slack/bind/${"A".repeat(43)}`, bob);
    expect(unknown).toMatchObject({ status: 404, state: "invalid" });

    for (const s of ["U0OLD", "U0ELSE", "U0GINA"]) expect(await slackPersonFor(await acmeId(), s)).toBeNull();
    // The refused link is still usable by someone with a seat.
    expect(await confirm(path, bob)).toMatchObject({ status: 200, state: "bound" });
    expect(await slackPersonFor(await acmeId(), "U0GINA")).toBe(await userId("bob"));
  });

  it("a Slack user bound to someone else is refused, and stays theirs", async () => {
    const first = await link("U0SHARED");
    expect(await confirm(first, await cookieOf("olga"))).toMatchObject({ state: "bound" });
    const second = await link("U0SHARED");
    const dave = await cookieOf("dave");
    expect(await open(second, dave)).toMatchObject({ status: 409, state: "bound_elsewhere" });
    expect(await confirm(second, dave)).toMatchObject({ status: 409, state: "bound_elsewhere" });
    expect(await slackPersonFor(await acmeId(), "U0SHARED")).toBe(await userId("olga"));
  });
});

describe("concurrent confirms", () => {
  it("one link confirmed twice at once, and two links for one Slack user, bind exactly once", async () => {
    const [olga, dave] = [await userId("olga"), await userId("dave")];
    const token = (p: string) => p.split("/").pop() as string;
    const same = token(await link("U0RACE1"));
    const once = await Promise.all([redeemBindLink(same, dave, new Date()), redeemBindLink(same, dave, new Date())]);
    expect(once.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(once.find((r) => !r.ok)).toMatchObject({ reason: "used" });
    const raced = await db().slackIdentity.findFirstOrThrow({ where: { slackUserId: "U0RACE1" } });
    expect(raced.userId).toBe(dave);
    await unbindSlackIdentity(dave, raced.id, new Date()); // the later tests count dave's bindings

    const [a, b] = [token(await link("U0RACE2")), token(await link("U0RACE2"))];
    const both = await Promise.all([redeemBindLink(a, olga, new Date()), redeemBindLink(b, dave, new Date())]);
    expect(both.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(both.find((r) => !r.ok)).toMatchObject({ reason: "slack_user_bound_to_someone_else" });
    const winner = both[0]!.ok ? olga : dave;
    expect(await slackPersonFor(await acmeId(), "U0RACE2")).toBe(winner);
    const row = await db().slackIdentity.findFirstOrThrow({ where: { slackUserId: "U0RACE2" } });
    await unbindSlackIdentity(winner, row.id, new Date());
  });
});

describe("a person's bindings", () => {
  it("are listed in their settings; only their owner removes one, audited", async () => {
    const dave = await cookieOf("dave");
    expect(await confirm(await link("U0DAVE"), dave)).toMatchObject({ state: "bound" });
    const signedOut = await open("/settings/slack");
    expect(signedOut.status).toBe(307);
    expect(new URL(signedOut.res.headers.get("location") ?? "", hub.url).searchParams.get("callbackUrl")).toBe(
      "/settings/slack",
    );
    const page = await open("/settings/slack", dave);
    expect(page.status).toBe(200);
    expect(page.html).toContain('data-slack-user="U0DAVE"');
    expect(page.html).toContain("Acme Workspace");
    expect((await open("/settings/slack", await cookieOf("carol"))).html).not.toContain("U0DAVE");

    const [binding] = await slackIdentitiesOf(await userId("dave"));
    expect(await unbindSlackIdentity(await userId("carol"), binding!.id, new Date())).toBeNull();
    expect(await slackPersonFor(await acmeId(), "U0DAVE")).toBe(await userId("dave"));

    expect(await unbindSlackIdentity(await userId("dave"), binding!.id, new Date())).toMatchObject({
      slackUserId: "U0DAVE",
    });
    expect(await slackPersonFor(await acmeId(), "U0DAVE")).toBeNull();
    const removed = (await db().auditEvent.findMany({ where: { event: "slack.user_unbound" } })).filter((r) =>
      JSON.stringify(r.detail).includes("U0DAVE"),
    );
    expect(removed.map((r) => r.actor).sort()).toEqual(["human:dave", `user:${await userId("dave")}`].sort());
  });

  it("go with the seat: removing a member drops their binding in that account", async () => {
    const carolId = await userId("carol");
    expect(await slackPersonFor(await acmeId(), "U0CAROL")).toBe(carolId);
    const m = await db().membership.findFirstOrThrow({ where: { userId: carolId } });
    await removeMember(await acmeId(), m.id, { actor: "human:olga", role: "owner" });
    expect(await slackPersonFor(await acmeId(), "U0CAROL")).toBeNull();
    const rows = await db().auditEvent.findMany({ where: { event: "slack.user_unbound", actor: "human:olga" } });
    expect(rows.filter((r) => JSON.stringify(r.detail).includes("seat_removed"))).toMatchObject([
      { accountId: await acmeId(), detail: { slack_user_id: "U0CAROL", reason: "seat_removed", user_id: carolId } },
    ]);
  });
});
