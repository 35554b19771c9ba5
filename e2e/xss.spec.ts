/**
 * Safe rendering (§9.6): a corpus of script-injection payloads in `title`,
 * `body`, option values/labels/descriptions, resolver comments (shown in the outcome) and `context`
 * parts (text, data, file uri) stays inert in a real browser — no dialog, the `window.__xss` canary
 * unset, no console error, no request to any host but the Hub — while benign controls render: a
 * heading, a marked external link with rel="noopener noreferrer nofollow", and an image reference
 * shown as a plain link (never fetched). In initech, as its member kim: the worker of the specs with
 * accounts of their own runs it after the keyboard spec, whose list it would otherwise crowd.
 */
import type { Page } from "@playwright/test";
import { api, envelope, expect, pullTerminal, test, type SignedIn } from "./support/fixtures";
import { e2eState } from "./support/state";
import { XSS_FILE_URIS, XSS_PAYLOADS } from "./support/xss-corpus";

test.describe.configure({ mode: "serial" });

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

interface Watch {
  dialogs: string[];
  consoleErrors: string[];
  remote: string[];
  requests: string[];
}

let kim: SignedIn;
const watch: Watch = { dialogs: [], consoleErrors: [], remote: [], requests: [] };

function isLocal(url: string): boolean {
  if (/^(data|blob|about):/i.test(url)) return true;
  try {
    return LOOPBACK_HOSTS.has(new URL(url).host.replace(/:\d+$/, ""));
  } catch {
    return false;
  }
}

test.beforeAll(async ({ kim: signedIn }) => {
  kim = signedIn; // the worker's signed-in kim, shared by this file's serial tests
  const { context, page } = kim;
  // Nothing may leave for another host: record every request, and stop the non-loopback ones.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (isLocal(url)) return route.continue();
    watch.remote.push(url);
    return route.abort("blockedbyclient");
  });
  page.on("request", (r) => {
    watch.requests.push(r.url());
    if (!isLocal(r.url())) watch.remote.push(r.url());
  });
  page.on("dialog", (d) => {
    watch.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on("console", (m) => {
    if (m.type() === "error") watch.consoleErrors.push(`${m.text()} @ ${m.location().url}`);
  });
  page.on("pageerror", (e) => watch.consoleErrors.push(`pageerror: ${e.message}`));
  context.on("page", (p) => watch.dialogs.push(`popup: ${p.url()}`));
});

/** The DOM holds nothing executable or remote that came from a payload. */
async function assertInertDom(page: Page, where: string): Promise<void> {
  const problems = await page.evaluate(() => {
    const bad: string[] = [];
    const danger = /^(javascript|vbscript|data):/;
    for (const el of Array.from(document.querySelectorAll("*"))) {
      for (const at of Array.from(el.attributes)) {
        const n = at.name.toLowerCase();
        if (n.startsWith("on")) bad.push(`${el.tagName} has ${n}`);
        if (
          [
            "href",
            "src",
            "action",
            "formaction",
            "xlink:href",
            "data",
            "poster",
            "background",
            "ping",
            "srcset",
          ].includes(n)
        ) {
          // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers ignore C0 controls and spaces in a URL scheme; the check must strip them too
          const v = at.value.replace(/[\u0000-\u0020]/g, "").toLowerCase();
          if (danger.test(v)) bad.push(`${el.tagName} ${n}=${at.value.slice(0, 60)}`);
        }
        if (n === "srcdoc") bad.push(`${el.tagName} has srcdoc`);
      }
    }
    for (const sel of ["iframe", "frame", "object", "embed", "base", "meta[http-equiv]", "isindex", "marquee"]) {
      if (document.querySelector(sel)) bad.push(`a <${sel}> element`);
    }
    // Where agent- and resolver-supplied text is shown, no raw HTML element may appear.
    const rendered =
      '[data-testid="item-title"],[data-testid="item-body"],[data-testid="item-context"],[data-testid="outcome"],[data-testid="conflict"]';
    for (const area of Array.from(document.querySelectorAll(rendered))) {
      const raw = area.querySelector(
        "script,style,link,img,svg,math,video,audio,picture,source,form,template,noscript,x,body,title,textarea,input,button",
      );
      if (raw) bad.push(`${area.getAttribute("data-testid")} contains <${raw.tagName.toLowerCase()}>`);
    }
    for (const area of Array.from(document.querySelectorAll(`${rendered},[data-testid="inbox-row"]`))) {
      for (const a of Array.from(area.querySelectorAll("a[href]"))) {
        const href = (a as HTMLAnchorElement).href;
        if (/^https?:/.test(href) && new URL(href).origin !== location.origin) {
          const rel = (a.getAttribute("rel") ?? "").split(/\s+/);
          for (const need of ["noopener", "noreferrer", "nofollow"])
            if (!rel.includes(need)) bad.push(`external link ${href} lacks rel ${need}`);
        }
      }
    }
    if ((window as unknown as { __xss?: unknown }).__xss !== undefined) bad.push("window.__xss was set");
    return bad;
  });
  expect(problems, where).toEqual([]);
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("load");
  await page.waitForTimeout(150); // let onerror/onload/ontoggle handlers have their chance
}

function assertQuiet(where: string): void {
  expect(watch.dialogs, `${where}: dialogs`).toEqual([]);
  expect(watch.remote, `${where}: requests to remote hosts`).toEqual([]);
  expect(watch.consoleErrors, `${where}: console errors`).toEqual([]);
}

const CHUNK = 5; // payloads per item: 5 × (text, data, file) = 15 context parts, under the 16-part limit

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

test("the controls render and the corpus is inert in body, title, options, context and comments", async () => {
  test.setTimeout(600_000);
  expect(XSS_PAYLOADS.length).toBeGreaterThanOrEqual(50);
  const a = api("initech", "xss-bot");
  const pat = e2eState().tokens.initech?.kim as string;
  const { page } = kim;

  // The watchers see what they watch for: a dialog, a remote request and a console error. This runs
  // on a JSON response (/healthz), which carries no CSP (server/page-headers.ts): on any HTML page
  // the policy's connect-src 'self' would refuse the request before the route could see it.
  await page.goto("/healthz");
  await page.evaluate(() => {
    alert("probe");
    console.error("probe");
    void fetch("http://evil.example/probe").catch(() => undefined);
  });
  await expect.poll(() => watch.remote.length).toBeGreaterThan(0);
  expect(watch.dialogs).toEqual(["alert: probe"]);
  expect(watch.consoleErrors.some((e) => e.startsWith("probe"))).toBe(true);
  // The blocked probe request reports its own console error a moment later; let it arrive before
  // the watchers are cleared, so it is not blamed on the controls below.
  await page.waitForTimeout(1000);
  watch.dialogs.length = 0;
  watch.remote.length = 0;
  watch.consoleErrors.length = 0;

  // The controls, followed by every payload, in one body.
  const controlsTitle = "XSS controls — heading, external link, image reference";
  const controls = await a.submit(
    envelope("notify", a.agentId, {
      title: controlsTitle,
      body: [
        "# Control heading",
        "Read [External control](https://example.com/docs) first.",
        "![Control image](https://example.com/control.png)",
        ...XSS_PAYLOADS,
      ].join("\n\n"),
      context: XSS_PAYLOADS.slice(0, 16).map((p) => ({ kind: "text", text: p })),
    }),
  );

  // Every payload as a title (and a tag), listed in the inbox.
  for (const [i, p] of XSS_PAYLOADS.entries()) {
    const title = Array.from(`XSS-T${i} ${p}`).slice(0, 200).join("");
    await a.submit(envelope("notify", a.agentId, { title, tags: [p.slice(0, 40)], body: p }));
  }

  // Payloads five at a time: an open ask (body, option values/labels/descriptions, context text,
  // data and file parts) and an ask resolved with the payloads as its comment (the outcome).
  const open: string[] = [];
  const resolved: string[] = [];
  for (const [k, group] of chunks(XSS_PAYLOADS, CHUNK).entries()) {
    const options = group.flatMap((p, j) => [
      { value: `o${j}`, label: p, description: p },
      { value: p, label: `value ${k}.${j}`, description: "the value itself is the payload" },
    ]);
    const context = group.flatMap((p, j) => [
      { kind: "text", text: p },
      { kind: "data", data: { payload: p, [p.slice(0, 50)]: [p] } },
      {
        kind: "file",
        file: { uri: XSS_FILE_URIS[(k * CHUNK + j) % XSS_FILE_URIS.length], name: p, mime_type: "text/html" },
      },
    ]);
    open.push(
      await a.submit(
        envelope("ask", a.agentId, {
          title: Array.from(`XSS#${k} ${group[0]}`).slice(0, 200).join(""),
          body: group.join("\n\n"),
          request: { mode: "select", options },
          context,
        }),
      ),
    );
    const done = await a.submit(
      envelope("ask", a.agentId, { title: `XSS comment #${k}`, request: { mode: "select", options } }),
    );
    const r = await a.resolveWithToken(done, pat, { resolution: "answered", value: "o0", comment: group.join("\n") });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    resolved.push(done);
  }
  expect((await pullTerminal(a, resolved[0] as string)).response.response.comment).toContain(XSS_PAYLOADS[0]);

  // Controls.
  await page.goto(`/inbox/${controls}`);
  await expect(page.getByTestId("item-title")).toHaveText(controlsTitle);
  await settle(page);
  const body = page.getByTestId("item-body");
  await expect(body.getByRole("heading", { name: "Control heading" })).toBeVisible();
  const external = body.locator('a[href="https://example.com/docs"]');
  await expect(external).toBeVisible();
  const rel = ((await external.getAttribute("rel")) ?? "").split(/\s+/);
  expect(rel).toEqual(expect.arrayContaining(["noopener", "noreferrer", "nofollow"]));
  // Visibly marked: the link shows where it goes, beyond its own label.
  await expect(external).toContainText("example.com");
  const image = body.locator('a[href="https://example.com/control.png"]');
  await expect(image).toBeVisible();
  await expect(page.locator('img[src*="example.com"]')).toHaveCount(0);
  await assertInertDom(page, "controls");
  await body.hover();
  assertQuiet("controls");

  // The titles and tags in the list, both pages of them, and a search over them.
  await page.goto("/inbox?agent=xss-bot&verb=notify");
  await expect(page.getByTestId("inbox-row").first()).toBeVisible();
  await settle(page);
  await assertInertDom(page, "inbox page 1");
  const next = page.getByRole("link", { name: /next page/i });
  if (await next.count()) {
    await next.click();
    await expect(page).toHaveURL(/after=/);
    await expect(page.getByTestId("inbox-row").first()).toBeVisible();
    await settle(page);
    await assertInertDom(page, "inbox page 2");
  }
  await page.goto("/inbox");
  await page.getByTestId("search").fill("XSS-T1");
  await expect(page).toHaveURL(/q=XSS-T1/);
  await expect(page.getByTestId("inbox-row").first()).toBeVisible();
  await settle(page);
  await assertInertDom(page, "inbox search");
  assertQuiet("inbox");

  for (const [k, id] of open.entries()) {
    const where = `open #${k}: ${XSS_PAYLOADS.slice(k * CHUNK, (k + 1) * CHUNK).join(" | ")}`;
    await page.goto(`/inbox/${id}`);
    await expect(page.getByTestId("item-title"), where).toContainText(`XSS#${k}`);
    await expect(page.getByTestId("item-context"), where).toBeVisible();
    await settle(page);
    await assertInertDom(page, where);
    assertQuiet(where);
  }
  for (const [k, id] of resolved.entries()) {
    const where = `comment #${k}: ${XSS_PAYLOADS.slice(k * CHUNK, (k + 1) * CHUNK).join(" | ")}`;
    await page.goto(`/inbox/${id}`);
    await expect(page.getByTestId("outcome"), where).toContainText("human:kim");
    await settle(page);
    await assertInertDom(page, where);
    assertQuiet(where);
  }
  // The payloads are shown as text (inert), not dropped wholesale.
  await page.goto(`/inbox/${resolved[0]}`);
  await expect(page.getByTestId("outcome")).toContainText("window.__xss=1");
  expect(watch.requests.length).toBeGreaterThan(0);
});
