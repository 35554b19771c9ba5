/**
 * Bearer-authenticated /v1 writes carry no ambient authority, so they are exempt from the
 * cookie-write same-origin check and are never redirected to sign-in — even when the caller also
 * sends a browser session cookie and a cross-site Origin. Cookie-authenticated writes are checked.
 */
import {
  api,
  envelope,
  expect,
  marker,
  sessionCookie,
  signedInContext,
  test,
  SESSION_COOKIE,
} from "./support/fixtures";
import { e2eState, LOGINS } from "./support/state";

const EVIL = "http://evil.example";

async function post(path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${e2eState().hubUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, location: res.headers.get("location"), body: text ? JSON.parse(text) : null };
}

test("bearer /v1 POSTs are never redirected or CSRF-refused; cookie writes are origin-checked", async ({ browser }) => {
  const a = api();
  const state = e2eState();
  const pat = state.tokens.acme?.alice as string;
  const { context } = await signedInContext(browser, LOGINS.alice);
  const cookie = `${SESSION_COOKIE}=${await sessionCookie(context)}`;
  await context.close();
  const crossSite = { origin: EVIL, "sec-fetch-site": "cross-site", cookie };

  // Submit with the agent key, from a "cross-site" caller that also has a session cookie.
  const submitted = await post(
    "/v1/messages",
    { authorization: `Bearer ${a.key}`, ...crossSite },
    envelope("ask", a.agentId, { title: `Bearer ${marker()}` }),
  );
  expect(submitted.location).toBeNull();
  expect(submitted.status).toBe(202);
  const id = submitted.body.id as string;

  // Resolve with alice's personal access token, same conditions.
  const resolved = await post(
    `/v1/messages/${id}/resolve`,
    { authorization: `Bearer ${pat}`, ...crossSite },
    { resolution: "answered", value: "approve" },
  );
  expect(resolved.location).toBeNull();
  expect(resolved.status).toBe(200);
  expect((await a.pull(id)).response.response.actor).toBe("human:alice");

  // The same with X-API-Key.
  const viaHeader = await post(
    "/v1/messages",
    { "x-api-key": a.key, ...crossSite },
    envelope("ask", a.agentId, { title: `X-API-Key ${marker()}` }),
  );
  expect(viaHeader.status).toBe(202);

  // Controls: the cookie alone, cross-site, is refused with §8.5 JSON (not a redirect) ...
  const csrf = await post(`/v1/messages/${viaHeader.body.id}/resolve`, crossSite, {
    resolution: "answered",
    value: "approve",
  });
  expect(csrf.location).toBeNull();
  expect(csrf.status).toBe(403);
  expect(csrf.body.error.code).toBe("not_authorized");
  expect((await a.pull(viaHeader.body.id)).status).toBe("open");
  // ... and accepted from our own origin, attested to the session's person.
  const sameOrigin = await post(
    `/v1/messages/${viaHeader.body.id}/resolve`,
    { origin: state.hubUrl, cookie },
    { resolution: "answered", value: "deny" },
  );
  expect(sameOrigin.status).toBe(200);
  const pulled = await a.pull(viaHeader.body.id);
  expect(pulled.response.response).toMatchObject({ actor: "human:alice", value: "deny" });
  // No credential at all: 401 JSON, not a redirect.
  const anon = await post("/v1/messages", {}, envelope("notify", a.agentId));
  expect(anon.location).toBeNull();
  expect(anon.status).toBe(401);
  expect(anon.body.error.code).toBe("unauthenticated");
});
