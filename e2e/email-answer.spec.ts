/**
 * Answering from the mail: an agent submits an ask; the Hub mails its resolver (the run's
 * SMTP server writes each mail under `mailDir`, e2e/global-setup.ts); a browser with NO session opens
 * the mail's "Approve" link, sees the item and the choice, confirms, and lands on the answered page.
 * The agent's pull then carries the answer with that person as the attested actor (§9.1). Opening
 * the link changed nothing; the used link is refused afterwards. An urgent ask naming its resolver
 * asks for a sign-in first (the default), through the dev IdP's real pages and back to the link.
 */
import { answerLinks, readMailDir } from "../test/support/mail-capture";
import { api, envelope, expect, marker, pullTerminal, signIn, test } from "./support/fixtures";
import { LOGINS } from "./support/state";

test("an urgent ask naming its resolver: the link asks for a sign-in, then answers as that person", async ({
  browser,
  hub,
}) => {
  const a = api();
  const title = `Urgent from mail ${marker()}`;
  const id = await a.submit(
    envelope("ask", a.agentId, {
      title,
      priority: "urgent",
      request: { mode: "confirm", allowed_resolvers: ["human:bob"] },
    }),
  );
  let approve: string | undefined;
  await expect
    .poll(
      async () => {
        const mail = (await readMailDir(hub.mailDir)).find((m) => m.subject?.includes(title));
        approve = mail ? answerLinks(mail).get("Approve") : undefined;
        return approve;
      },
      { timeout: 15_000 },
    )
    .toBeDefined();
  const path = new URL(approve as string).pathname;
  const context = await browser.newContext({ baseURL: hub.hubUrl }); // no session
  try {
    const page = await context.newPage();
    expect((await page.goto(path))?.status()).toBe(403);
    await expect(page.locator("body")).toHaveAttribute("data-state", "sign_in");
    await expect(page.getByTestId("email-answer-sign-in-why")).toContainText(
      "high priority, or names who may answer it",
    );
    await expect(page.getByTestId("email-answer-confirm")).toHaveCount(0);
    expect((await a.pull(id)).status).toBe("open");

    const landed = await signIn(page, LOGINS.bob, path);
    expect(landed.pathname).toBe(path);
    await expect(page.locator("body")).toHaveAttribute("data-state", "ready");
    await page.getByTestId("email-answer-confirm").click();
    await expect(page.locator("body")).toHaveAttribute("data-state", "answered");
    const pulled = await pullTerminal(a, id);
    expect(pulled.response.response).toMatchObject({ value: "approve", actor: "human:bob" });
  } finally {
    await context.close();
  }
});

test("a person with no session answers an ask from the mail's link", async ({ browser, hub }) => {
  const a = api();
  const title = `Deploy from mail ${marker()}`;
  const id = await a.submit(
    envelope("ask", a.agentId, {
      title,
      priority: "normal",
      body: "Roll out **v2**?",
      request: { mode: "confirm" },
    }),
  );

  let links = new Map<string, string>();
  await expect
    .poll(
      async () => {
        // Every resolver of acme is mailed (no allowed_resolvers): bob's mail.
        const mail = (await readMailDir(hub.mailDir)).find(
          (m) => m.subject?.includes(title) && m.to && "text" in m.to && m.to.text === "bob@acme.test",
        );
        links = mail ? answerLinks(mail) : new Map();
        return mail?.to && "text" in mail.to ? mail.to.text : undefined;
      },
      { timeout: 15_000 },
    )
    .toBe("bob@acme.test");
  expect([...links.keys()]).toEqual(["Approve", "Deny"]);
  const approve = links.get("Approve") as string;
  expect(new URL(approve).origin).toBe(hub.hubUrl);

  const context = await browser.newContext(); // no session at all
  try {
    const page = await context.newPage();
    const shown = await page.goto(approve);
    expect(shown?.status()).toBe(200);
    expect(shown?.headers()["cache-control"]).toBe("no-store");
    await expect(page.getByTestId("email-answer-title")).toHaveText(title);
    await expect(page.getByTestId("email-answer-option")).toHaveText("Approve");
    // Opening (and reloading) the page decided nothing.
    await page.reload();
    expect((await a.pull(id)).status).toBe("open");

    await page.getByTestId("email-answer-confirm").click();
    await expect(page.getByTestId("email-answer-done")).toBeVisible();
    await expect(page.locator("body")).toHaveAttribute("data-state", "answered");

    const pulled = await pullTerminal(a, id);
    expect(pulled.status).toBe("answered");
    expect(pulled.response.response).toMatchObject({ value: "approve", actor: "human:bob" });

    // The link is spent: opening it again says so and changes nothing.
    const again = await page.goto(approve);
    expect(again?.status()).toBe(410);
    await expect(page.locator("body")).toHaveAttribute("data-state", "used");
    expect(await context.cookies()).toEqual([]); // no session was ever opened
  } finally {
    await context.close();
  }
});
