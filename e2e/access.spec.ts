/**
 * Who sees and who resolves (§9.1): a member of another account sees nothing of this one
 * (its items are absent from their inbox and their pages are 404); a viewer reads but cannot resolve
 * — no controls, and a forced write (a replayed server action or a cookie-authenticated /v1 call)
 * is refused and leaves the item open.
 */
import type { Request } from "@playwright/test";
import { api, envelope, expect, marker, pullTerminal, signedInContext, test } from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

test("a member of another account sees nothing of this one", async ({ browser }) => {
  const acme = api("acme");
  const globex = api("globex", "globex-bot/ops");
  const ourTitle = `Acme secret plan ${marker()}`;
  const ours = await acme.submit(envelope("ask", acme.agentId, { title: ourTitle, body: "acme-only body" }));
  const theirTitle = `Globex own item ${marker()}`;
  const theirs = await globex.submit(envelope("ask", globex.agentId, { title: theirTitle }));

  const { context, page } = await signedInContext(browser, LOGINS.gina);
  try {
    await page.goto("/inbox");
    // Their own item is listed (so the page works), ours is not.
    await expect(page.locator(`[data-testid="inbox-row"][data-id="${theirs}"]`)).toBeVisible();
    await expect(page.locator(`[data-testid="inbox-row"][data-id="${ours}"]`)).toHaveCount(0);
    await expect(page.locator("body")).not.toContainText(ourTitle);

    const res = await page.goto(`/inbox/${ours}`);
    expect(res?.status()).toBe(404);
    await expect(page.locator("body")).not.toContainText(ourTitle);
    await expect(page.locator("body")).not.toContainText("acme-only body");

    // The API answers the same 404 to her session, same-origin.
    const hub = e2eState().hubUrl;
    const api404 = await page.request.post(`/v1/messages/${ours}/resolve`, {
      headers: { origin: hub, "content-type": "application/json" },
      data: { resolution: "answered", value: "approve" },
      maxRedirects: 0,
    });
    expect(api404.status()).toBe(404);
    expect((await pullTerminal(acme, ours, 0)).status).toBe("open");
  } finally {
    await context.close();
  }
});

test("a viewer sees items but cannot resolve them", async ({ browser }) => {
  const a = api();
  const hub = e2eState().hubUrl;
  const options = {
    mode: "select",
    options: [
      { value: "ship", label: "Ship" },
      { value: "hold", label: "Hold" },
    ],
  };
  const viewTitle = `Viewer can read ${marker()}`;
  const target = await a.submit(envelope("ask", a.agentId, { title: viewTitle, request: options }));
  const donorTitle = `Owner answers ${marker()}`;
  const donor = await a.submit(envelope("ask", a.agentId, { title: donorTitle, request: options }));

  const vic = await signedInContext(browser, LOGINS.vic);
  const alice = await signedInContext(browser, LOGINS.alice);
  try {
    // Vic reads the item, without any way to answer it.
    await vic.page.goto("/inbox");
    await expect(vic.page.locator(`[data-testid="inbox-row"][data-id="${target}"]`)).toBeVisible();
    const res = await vic.page.goto(`/inbox/${target}`);
    expect(res?.status()).toBe(200);
    await expect(vic.page.getByTestId("item-title")).toHaveText(viewTitle);
    await expect(vic.page.getByTestId("submit-answer")).toHaveCount(0);
    await expect(vic.page.getByTestId("decline")).toHaveCount(0);

    // Record the write alice's page makes when she answers another item (a server action or a
    // /v1 call with her cookie) ...
    const writes: Request[] = [];
    const onRequest = (r: Request) => {
      if (r.method() === "POST" && r.url().startsWith(hub) && !r.url().includes("/api/auth/")) writes.push(r);
    };
    alice.page.on("request", onRequest);
    await alice.page.goto(`/inbox/${donor}`);
    await alice.page.getByTestId("option-ship").click();
    await alice.page.getByTestId("submit-answer").click();
    await expect(alice.page.getByTestId("outcome")).toContainText("human:alice");
    alice.page.off("request", onRequest);
    expect(writes.length, "the answer should be one POST to the Hub").toBeGreaterThan(0);

    // ... and replay it as vic against the item she can see.
    for (const w of writes) {
      const headers = { ...(await w.allHeaders()) };
      for (const h of ["cookie", "content-length", "host", "connection"]) delete headers[h];
      headers.origin = hub;
      const body = (w.postDataBuffer() ?? Buffer.alloc(0)).toString("latin1").split(donor).join(target);
      // (Where the id is a bound, encrypted action argument the replay targets alice's item; it
      // must be refused all the same.)
      await vic.context.request.fetch(w.url().split(donor).join(target), {
        method: "POST",
        headers,
        data: Buffer.from(body, "latin1"),
        maxRedirects: 0,
      });
    }
    // Directly over /v1 with her session cookie and a same-origin header: 403.
    const forced = await vic.page.request.post(`/v1/messages/${target}/resolve`, {
      headers: { origin: hub, "content-type": "application/json" },
      data: { resolution: "answered", value: "ship" },
      maxRedirects: 0,
    });
    expect(forced.status()).toBe(403);
    expect((await forced.json()).error?.code).toBe("not_authorized");

    const after = await a.pull(target);
    expect(after.status).toBe("open");
    expect(after.response).toBeUndefined();
    const donorAfter = await a.pull(donor);
    expect(donorAfter.response.response.actor).toBe("human:alice");
  } finally {
    await vic.context.close();
    await alice.context.close();
  }
});
