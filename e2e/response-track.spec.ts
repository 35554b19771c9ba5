/**
 * The agent's side of an item in the browser (§14.2, §15.4): a pending ask says the agent is
 * "waiting now" once it polls (item page and list); after alice answers, the item shows the answer
 * not yet picked up, then delivered to the agent (its GET), then acknowledged with the agent's note
 * rendered through the sanitizing renderer — Markdown yes, HTML never — arriving live.
 */
import { api, envelope, expect, marker, test, type SignedIn } from "./support/fixtures";
import { e2eState } from "./support/state";

test.describe.configure({ mode: "serial" });

let alice: SignedIn;

test.beforeAll(async ({ alice: signedIn }) => {
  alice = signedIn; // the worker's signed-in alice, shared by this file's serial tests
});

test("waiting now → answered → delivered → acknowledged with the note", async () => {
  const a = api();
  const title = `Deploy window ${marker()}`;
  const id = await a.submit(envelope("ask", a.agentId, { title }));
  const { page } = alice;

  // The agent polls (a long-poll would do the same): presence is online, "waiting now".
  await a.pull(id);
  await page.goto(`/inbox/${id}`);
  await expect(page.getByTestId("agent-waiting")).toHaveText(/waiting now/);
  await expect(page.getByTestId("agent-waiting")).toHaveAttribute("data-state", "online");
  await expect(page.getByTestId("response-track")).toHaveCount(0);

  await page.goto(`/inbox?q=${encodeURIComponent(title)}`);
  const row = page.locator("li", { has: page.getByRole("link", { name: title }) });
  await expect(row.getByTestId("row-waiting")).toHaveText("waiting now");

  // alice answers through the API with her token (the form itself is resolve.spec.ts's job).
  const resolved = await a.resolveWithToken(id, e2eState().tokens.acme!.alice!, {
    resolution: "answered",
    value: "approve",
  });
  expect(resolved.status).toBe(200);
  await page.goto(`/inbox/${id}`);
  await expect(page.getByTestId("response-track")).toHaveAttribute("data-state", "not-delivered");
  await expect(page.getByTestId("response-track")).toContainText("Not picked up by the agent yet");
  await expect(page.getByTestId("agent-waiting")).toHaveCount(0);

  const pulled = await a.pull(id);
  expect(pulled.delivery.state).toBe("delivered-to-agent");
  await page.reload();
  await expect(page.getByTestId("response-track")).toHaveAttribute("data-state", "delivered-to-agent");
  await expect(page.getByTestId("track-delivered")).toContainText("Delivered to the agent");

  const note =
    "got it — **resuming** the deploy <img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>";
  const res = await fetch(`${e2eState().hubUrl}/v1/messages/${id}/ack`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json" },
    body: JSON.stringify({ note, resolution_id: pulled.response.resolution_id }),
  });
  expect(res.status).toBe(200);
  // No reload: the ack NOTIFYs the inbox and the open item page refreshes itself.
  const track = page.getByTestId("response-track");
  await expect(track).toHaveAttribute("data-state", "acknowledged");
  await expect(page.getByTestId("track-acknowledged")).toContainText(`Acknowledged by agent:${a.agentId}`);
  const rendered = page.getByTestId("ack-note");
  await expect(rendered).toContainText("got it — resuming the deploy");
  await expect(rendered.locator("strong")).toHaveText("resuming");
  await expect(track.locator("img, script")).toHaveCount(0);
  expect(await page.title()).not.toBe("pwned");
});
