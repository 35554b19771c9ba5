/**
 * Answering from the mail (#16): an agent submits an ask; the Hub mails its resolver (the run's
 * SMTP server writes each mail under `mailDir`, e2e/global-setup.ts); a browser with NO session opens
 * the mail's "Approve" link, sees the item and the choice, confirms, and lands on the answered page.
 * The agent's pull then carries the answer with that person as the attested actor (§9.1). Opening
 * the link changed nothing; the used link is refused afterwards.
 */
import { answerLinks, readMailDir } from "../test/support/mail-capture";
import { api, envelope, expect, marker, pullTerminal, test } from "./support/fixtures";

test("a person with no session answers an ask from the mail's link", async ({ browser, hub }) => {
  const a = api();
  const title = `Deploy from mail ${marker()}`;
  const id = await a.submit(
    envelope("ask", a.agentId, {
      title,
      priority: "urgent",
      body: "Roll out **v2**?",
      request: { mode: "confirm", allowed_resolvers: ["human:bob"] },
    }),
  );

  let links = new Map<string, string>();
  await expect
    .poll(
      async () => {
        const mail = (await readMailDir(hub.mailDir)).find((m) => m.subject?.includes(title));
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
