/**
 * Groups and agent sponsors in the admin screens (docs/groups.md), in the umbrella account: una (its
 * owner) creates a group, puts max in it, maps an identity-provider claim value to it, makes it and
 * max sponsors of an agent and takes them away again; a refused change (a duplicate) shows the
 * form's error and changes nothing. abe (an admin) sees the same pages without a single form, and
 * his forged server actions — una's recorded posts replayed with his session — are refused by the
 * verbs and change nothing; una's own replay against another account's agent is "not found". The
 * audit log shows every group.* and agent.sponsors_changed row as una's. Two sign-ins in all.
 */
import type { BrowserContext, Page, Request } from "@playwright/test";
import pg from "pg";
import { expect, signedInContext, test, type SignedIn } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

test.describe.configure({ mode: "serial" });

const BASE = "/admin/umbrella";
let una: SignedIn;
let abe: SignedIn;
let botPath = "";
let botRowId = "";

interface Recorded {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Records the server-action POSTs `act` makes, to replay them in another session. */
async function recordPosts(page: Page, act: () => Promise<void>): Promise<Recorded[]> {
  const hub = e2eState().hubUrl;
  const writes: Request[] = [];
  const onRequest = (r: Request) => {
    if (r.method() === "POST" && r.url().startsWith(hub) && !r.url().includes("/api/auth/")) writes.push(r);
  };
  page.on("request", onRequest);
  try {
    await act();
  } finally {
    page.off("request", onRequest);
  }
  expect(writes.length, "the form should post to the Hub").toBeGreaterThan(0);
  const out: Recorded[] = [];
  for (const w of writes) {
    const headers = { ...(await w.allHeaders()) };
    for (const h of ["cookie", "content-length", "host", "connection"]) delete headers[h];
    headers.origin = hub;
    out.push({ url: w.url(), headers, body: (w.postDataBuffer() ?? Buffer.alloc(0)).toString("latin1") });
  }
  return out;
}

/** Replays recorded posts in `context`'s session, `from` → `to` in their bodies; the answers' text. */
async function replay(context: BrowserContext, posts: Recorded[], from: string, to: string): Promise<string> {
  const answers: string[] = [];
  for (const p of posts) {
    const res = await context.request.fetch(p.url, {
      method: "POST",
      headers: p.headers,
      data: Buffer.from(p.body.split(from).join(to), "latin1"),
      maxRedirects: 0,
    });
    answers.push(await res.text());
  }
  return answers.join("\n");
}

async function sponsorsOn(page: Page): Promise<string[]> {
  return page
    .locator('[data-testid="sponsor"]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-sponsor") ?? ""));
}

async function sql<T>(text: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: e2eState().databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

let createPosts: Recorded[] = [];
let sponsorPosts: Recorded[] = [];

test.beforeAll(async ({ browser }) => {
  una = await signedInContext(browser, LOGINS.una);
  una.page.on("dialog", (d) => void d.accept());
  abe = await signedInContext(browser, LOGINS.abe);
});

test.afterAll(async () => {
  await una?.context.close();
  await abe?.context.close();
});

test("an owner creates a group, puts a person in it and maps a claim value; a duplicate is refused", async () => {
  const { page } = una;
  await page.goto(`${BASE}/agents`);
  await page.getByTestId("tab-groups").click();
  await page.waitForURL(/\/admin\/umbrella\/groups$/);
  await expect(page.getByTestId("groups-empty")).toBeVisible();
  await expect(page.getByTestId("groups-owner-only")).toHaveCount(0);

  await page.getByTestId("group-name-input").fill("platform");
  await page.getByTestId("group-description-input").fill("Runs the <b>deploy</b> bots");
  await page.getByTestId("create-group-submit").click();
  await expect(page.getByTestId("create-group-ok")).toContainText("group:platform created");
  const platform = page.locator('[data-testid="group"][data-group="platform"]');
  // The description is text, never markup.
  await expect(platform.getByTestId("group-description")).toHaveText("Runs the <b>deploy</b> bots");
  await expect(platform.getByTestId("group-no-mappings")).toBeVisible();

  // The same name again: the service's refusal is the form's error, and there is still one group.
  await page.getByTestId("group-name-input").fill("platform");
  await page.getByTestId("create-group-submit").click();
  await expect(page.getByTestId("create-group-error")).toContainText("group platform already exists");
  await expect(page.locator('[data-testid="group"]')).toHaveCount(1);

  // Only the account's people are offered; max goes in by hand.
  const person = page.getByTestId("add-member-platform-person");
  expect(await person.locator("option").allTextContents()).toEqual(["human:abe", "human:max", "human:una"]);
  await person.selectOption("human:max");
  await page.getByTestId("add-member-platform-submit").click();
  const max = platform.locator('[data-testid="group-member"][data-handle="max"]');
  await expect(max).toHaveAttribute("data-source", "manual");
  await expect(max).toContainText("manual");
  await expect(person.locator("option")).toHaveText(["human:abe", "human:una"]);

  await page.getByTestId("add-mapping-platform-value").fill("platform-team");
  await page.getByTestId("add-mapping-platform-submit").click();
  await expect(platform.locator('[data-testid="group-mapping"][data-value="platform-team"]')).toBeVisible();
  await page.getByTestId("add-mapping-platform-value").fill("platform-team");
  await page.getByTestId("add-mapping-platform-submit").click();
  await expect(page.getByTestId("add-mapping-platform-error")).toContainText("already mapped");
  await expect(platform.locator('[data-testid="group-mapping"]')).toHaveCount(1);

  // A second group, whose creation is kept to replay as the admin.
  await page.getByTestId("group-name-input").fill("oncall");
  createPosts = await recordPosts(page, async () => {
    await page.getByTestId("create-group-submit").click();
    await expect(page.getByTestId("create-group-ok")).toContainText("group:oncall created");
  });
  await expect(page.locator('[data-testid="group"]')).toHaveCount(2);
});

test("an owner sets an agent's sponsors: a person and a group, then takes the person away", async () => {
  const { page } = una;
  await page.goto(`${BASE}/agents`);
  const row = page.locator('[data-testid="agent-row"][data-agent="umbrella-bot"]');
  // Provisioned by the CLI, which names no sponsor.
  await expect(row.getByTestId("agent-sponsors")).toHaveText("");
  await row.getByRole("link").click();
  await page.waitForURL(/\/admin\/umbrella\/agents\/[^/]+$/);
  botPath = new URL(page.url()).pathname;
  botRowId = decodeURIComponent(botPath.split("/").pop() as string);
  await expect(page.getByTestId("no-sponsors")).toBeVisible();

  await page.getByTestId("add-sponsor-select").selectOption("group:platform");
  await page.getByTestId("add-sponsor-submit").click();
  await expect(page.getByTestId("add-sponsor-ok")).toContainText("Sponsors now: group:platform.");
  await page.getByTestId("add-sponsor-select").selectOption("human:max");
  sponsorPosts = await recordPosts(page, async () => {
    await page.getByTestId("add-sponsor-submit").click();
    await expect(page.getByTestId("add-sponsor-ok")).toContainText("Sponsors now: human:max, group:platform.");
  });
  expect(await sponsorsOn(page)).toEqual(["human:max", "group:platform"]);
  // A sponsor is not offered again.
  await expect(page.getByTestId("add-sponsor-select").locator('option[value="human:max"]')).toHaveCount(0);

  await page.getByTestId("remove-sponsor-human:max-submit").click();
  await expect(page.locator('[data-testid="sponsor"][data-sponsor="human:max"]')).toHaveCount(0);
  expect(await sponsorsOn(page)).toEqual(["group:platform"]);

  await page.goto(`${BASE}/agents`);
  await expect(row.getByTestId("agent-sponsors")).toHaveText("group:platform");
  // An agent created in the browser has its creator as its first sponsor.
  await page.getByTestId("agent-id-input").fill("una-bot");
  await page.getByTestId("create-agent-submit").click();
  await expect(page.getByTestId("create-agent-secret")).toHaveText(/^ma2h_key_/);
  await page.reload();
  await expect(
    page.locator('[data-testid="agent-row"][data-agent="una-bot"]').getByTestId("agent-sponsors"),
  ).toHaveText("human:una");
});

test("an admin sees groups and sponsors with no form; forged actions change nothing; another account's agent is not found", async () => {
  const { page, context } = abe;
  await page.goto(`${BASE}/groups`);
  await expect(page.getByTestId("tab-groups")).toBeVisible();
  await expect(page.getByTestId("groups-owner-only")).toBeVisible();
  const platform = page.locator('[data-testid="group"][data-group="platform"]');
  await expect(platform.locator('[data-testid="group-member"][data-handle="max"]')).toContainText("manual");
  await expect(platform.locator('[data-testid="group-mapping"][data-value="platform-team"]')).toBeVisible();
  await expect(page.locator('[data-testid="group"]')).toHaveCount(2);
  await expect(page.locator("main form")).toHaveCount(0);

  await page.goto(botPath);
  expect(await sponsorsOn(page)).toEqual(["group:platform"]);
  await expect(page.getByTestId("sponsors-owner-only")).toBeVisible();
  await expect(page.locator('[data-testid="sponsors"] form')).toHaveCount(0);

  // una's recorded posts, replayed with abe's session: his seat passes the action's gate, and the
  // verbs refuse him.
  expect(await replay(context, createPosts, "oncall", "forged")).toContain("only an owner can change groups");
  expect(await replay(context, sponsorPosts, "human:max", "human:abe")).toContain(
    "only an owner can change an agent's sponsors",
  );
  await page.goto(`${BASE}/groups`);
  await expect(page.locator('[data-testid="group"]')).toHaveCount(2);
  await expect(page.locator('[data-testid="group"][data-group="forged"]')).toHaveCount(0);
  await page.goto(botPath);
  expect(await sponsorsOn(page)).toEqual(["group:platform"]);

  // Another account: its groups page and its agent are 404 to umbrella's owner, and her replayed
  // sponsor change naming acme's agent is "not found" and gives it no sponsor.
  const [acmeBot] = await sql<{ id: string }>(
    "SELECT a.id FROM agents a JOIN accounts c ON c.id = a.account_id WHERE c.slug = 'acme' AND a.agent_id = $1",
    ["deploybot/dev-team"],
  );
  const acmeSponsors = () =>
    sql<{ n: string }>("SELECT count(*) AS n FROM agent_sponsors WHERE agent_row_id = $1", [acmeBot!.id]);
  const before = await acmeSponsors();
  expect((await una.page.goto("/admin/acme/groups"))?.status()).toBe(404);
  expect((await una.page.goto(`${BASE}/agents/${encodeURIComponent(acmeBot!.id)}`))?.status()).toBe(404);
  expect(await replay(una.context, sponsorPosts, botRowId, acmeBot!.id)).toContain(`agent ${acmeBot!.id} not found`);
  expect(await acmeSponsors()).toEqual(before);

  // Control: the same create replayed in una's own session does create the group, so abe's
  // refusal above was the verb's role check, not a broken replay.
  expect(await replay(una.context, createPosts, "oncall", "replayed")).toContain("Group group:replayed created.");
  await una.page.goto(`${BASE}/groups`);
  await expect(una.page.locator('[data-testid="group"][data-group="replayed"]')).toBeVisible();
});

test("an owner takes the person out, drops the mapping and deletes the groups; the audit log has every change", async () => {
  const { page } = una;
  await page.goto(`${BASE}/groups`);
  const platform = page.locator('[data-testid="group"][data-group="platform"]');
  await page.getByTestId("remove-member-platform-max-submit").click();
  await expect(platform.locator('[data-testid="group-member"]')).toHaveCount(0);
  await page.getByTestId("remove-mapping-platform-platform-team-submit").click();
  await expect(platform.getByTestId("group-no-mappings")).toBeVisible();
  for (const name of ["replayed", "oncall", "platform"]) {
    await page.getByTestId(`delete-group-${name}-submit`).click();
    await expect(page.locator(`[data-testid="group"][data-group="${name}"]`)).toHaveCount(0);
  }
  await expect(page.getByTestId("groups-empty")).toBeVisible();
  // A deleted group sponsors nothing any more.
  await page.goto(botPath);
  await expect(page.getByTestId("no-sponsors")).toBeVisible();

  const rows = async (kind: string) => {
    await page.goto(`${BASE}/audit?kind=${encodeURIComponent(kind)}`);
    return page
      .locator('[data-testid="audit-row"]')
      .evaluateAll((trs) => trs.map((r) => `${r.getAttribute("data-event")} ${r.getAttribute("data-actor")}`));
  };
  const groupRows = await rows("group.*");
  expect([...new Set(groupRows)].sort()).toEqual([
    "group.created human:una",
    "group.deleted human:una",
    "group.mapping_added human:una",
    "group.mapping_removed human:una",
    "group.member_added human:una",
    "group.member_removed human:una",
  ]);
  // platform, oncall and the owner's replayed one; abe's forged one never happened.
  expect(groupRows.filter((r) => r.startsWith("group.created "))).toHaveLength(3);
  // group:platform added, human:max added and removed, and the deletion's removal of group:platform.
  expect(await rows("agent.sponsors_changed")).toEqual(Array(4).fill("agent.sponsors_changed human:una"));
});
