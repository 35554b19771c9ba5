/**
 * The `ma2h` command (packages/agent, built) against the real Hub (web + worker): every exit code
 * from a real case, stdout as the bare answer or the whole Response, errors as one stderr line with
 * the §8.5 code, flags over the environment, and `ma2h directives --follow` acking what a person sent.
 */
// covers: packages/agent/src/cli/
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT, EXIT_DESCRIPTIONS } from "../src/cli/exit-codes";
import { startFaultProxy } from "../../../test/support/fault-proxy";
import { freePort, repoRoot } from "../../../test/support/hub";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { parkedStoreTotal } from "../../../test/support/parked-store";
import { waitFor, waitUntil } from "../../../test/support/wait";
import { errorLine, ma2h, start, tempDir } from "./cli-kit";

const A = "deploybot/dev-team";
const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  server: "pair",
});
const acme = hub.account("acme");
const store = tempDir("cli-store");
const env = () => ({
  MA2H_URL: hub.url,
  MA2H_API_KEY: acme.keys[A],
  MA2H_AGENT_ID: A,
  MA2H_STORE_DIR: store,
});
const person = () => hub.human("alice", "acme");
const resolve = async (id: string, body: Record<string, unknown>) => {
  const res = await person().post(`/v1/messages/${id}/resolve`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const version = JSON.parse(readFileSync(join(repoRoot, "packages/agent/package.json"), "utf8")).version;

/** Starts an ask, returns its id (from the progress note) and the running command. */
async function asking(args: string[]) {
  const run = start(args, env());
  const [, id] = await run.stderrMatch(/asked (msg_[0-9a-z]+)/u);
  return { id: id as string, run };
}

describe("usage (exit 2)", () => {
  it("--version prints the package's version; --help lists the commands and the exit-code table", async () => {
    const v = await ma2h(["--version"], {});
    expect(v).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    const help = await ma2h(["--help"], {});
    expect(help.code).toBe(0);
    for (const cmd of [
      "notify",
      "ask confirm",
      "ask select",
      "ask input",
      "wait",
      "cancel",
      "directives",
      "receive",
      "verify",
    ])
      expect(help.stdout).toContain(`  ${cmd} `);
    // The one table in the code, in `ma2h --help` and in the package README alike.
    const readme = readFileSync(join(repoRoot, "packages/agent/README.md"), "utf8").replace(/ +/gu, " ");
    for (const [code, text] of EXIT_DESCRIPTIONS) {
      expect(help.stdout).toContain(`  ${code}  ${text}`);
      expect(readme).toContain(`| ${code} | ${text} |`);
    }
    const cmdHelp = await ma2h(["ask", "select", "--help"], {});
    expect(cmdHelp.code).toBe(0);
    expect(cmdHelp.stdout).toMatch(/^usage: ma2h ask select <title> \[options\]/u);
    expect(cmdHelp.stdout).toContain("--option VALUE=LABEL (repeatable)");
  });

  it("an unknown flag, a missing argument, a bad value or a missing setting exits 2 with one usage_error line", async () => {
    const cases: string[][] = [
      ["notify", "hi", "--colour", "red"],
      ["notify"],
      ["notify", "hi", "--priority", "asap"],
      ["ask", "select", "Pick", "--option", "only=One"],
      ["ask", "select", "Pick", "--option", "a=A", "--option", "a=B"],
      ["ask", "confirm", "Go?", "--default", "approve"], // a default without --timeout never applies
      ["ask", "confirm", "Go?", "--timeout", "soon"],
      ["ask", "input", "Why?", "--field", "reason:text"],
      ["ask", "frobnicate", "x"],
      ["wait"],
      ["nonsense"],
      ["receive", "--body", "-", "--signature", "t=1"],
    ];
    for (const args of cases) {
      const run = await ma2h(args, env());
      expect(run.code, args.join(" ")).toBe(EXIT.usage);
      expect(run.stdout, args.join(" ")).toBe("");
      expect(run.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(errorLine(run).code, args.join(" ")).toBe("usage_error");
    }
    // Nothing reached the Hub: no settings at all is a usage error too, before any request.
    const bare = await ma2h(["notify", "hi"], { MA2H_STORE_DIR: store });
    expect(bare.code).toBe(EXIT.usage);
    expect(errorLine(bare).message).toContain("MA2H_URL");
  });
});

describe("notify", () => {
  it("prints the id; the Hub holds the title, body file, priority and tags; flags override the environment", async () => {
    const bodyFile = join(store, "body.md");
    writeFileSync(bodyFile, "Build **142** is green — ✓\n");
    const run = await ma2h(
      ["notify", "Build 142 passed", "--body-file", bodyFile, "--priority", "low", "--tag", "ci", "--tag", "main"],
      env(),
    );
    expect(run.code, run.stderr).toBe(0);
    const id = run.stdout.trim();
    expect(run.stdout).toMatch(/^msg_[0-9a-z]+\n$/u);
    const got = await hub.agent(A, "acme").get(`/v1/messages/${id}`);
    expect(got.body).toMatchObject({
      type: "notify",
      title: "Build 142 passed",
      body: "Build **142** is green — ✓\n",
      priority: "low",
      tags: ["ci", "main"],
      agent: { id: A },
    });
    // --url / --api-key / --agent-id win over a wrong environment; --json prints the ack.
    const wrong = { ...env(), MA2H_URL: "http://127.0.0.1:9", MA2H_API_KEY: "nope" };
    const flags = await ma2h(
      ["notify", "via flags", "--json", "--url", hub.url, "--api-key", acme.keys[A] as string],
      wrong,
    );
    expect(flags.code, flags.stderr).toBe(0);
    expect(JSON.parse(flags.stdout)).toMatchObject({ id: expect.stringMatching(/^msg_/u), status: "delivered" });
  });
});

describe("ask: the exit code is the outcome", () => {
  it("confirm approved → 0 with stdout approve; denied → 1 with stdout deny", async () => {
    const yes = await asking(["ask", "confirm", "Deploy 142?"]);
    await resolve(yes.id, { resolution: "answered", value: "approve" });
    expect(await yes.run.done).toMatchObject({ code: EXIT.ok, stdout: "approve\n" });
    const no = await asking(["ask", "confirm", "Deploy 143?", "--priority", "high"]);
    await resolve(no.id, { resolution: "answered", value: "deny", comment: "not today" });
    expect(await no.run.done).toMatchObject({ code: EXIT.denied, stdout: "deny\n" });
    // `wait` on the settled ids tells the same outcome (it learns the mode from the message).
    expect(await ma2h(["wait", yes.id], env())).toMatchObject({ code: EXIT.ok, stdout: "approve\n" });
    expect(await ma2h(["wait", no.id], env())).toMatchObject({ code: EXIT.denied, stdout: "deny\n" });
  });

  it("select prints the value; --allow-edit accepts an off-menu answer; --json prints the whole Response", async () => {
    const sel = await asking(["ask", "select", "Which region?", "--option", "eu=Europe", "--option", "us"]);
    const msg = await hub.agent(A, "acme").get(`/v1/messages/${sel.id}`);
    expect(msg.body.request).toMatchObject({
      mode: "select",
      options: [
        { value: "eu", label: "Europe" },
        { value: "us", label: "us" },
      ],
    });
    await resolve(sel.id, { resolution: "answered", value: "us" });
    expect(await sel.run.done).toMatchObject({ code: EXIT.ok, stdout: "us\n" });

    const edit = await asking([
      "ask",
      "select",
      "Ship or hold?",
      "--option",
      "ship=Ship",
      "--option",
      "hold=Hold",
      "--allow-edit",
      "--json",
    ]);
    await resolve(edit.id, { resolution: "answered", value: "hold until the migration lands" });
    const done = await edit.run.done;
    expect(done.code, done.stderr).toBe(EXIT.offMenu);
    expect(JSON.parse(done.stdout)).toMatchObject({
      in_reply_to: edit.id,
      resolution: "answered",
      response: { value: "hold until the migration lands", edited: true, actor: "human:alice" },
    });
  });

  it("an answer in the person's own words exits 8 with a note, in text mode and on wait; a listed option still exits 0", async () => {
    const select = ["ask", "select", "Ship or hold?", "--option", "ship=Ship", "--option", "hold=Hold", "--allow-edit"];
    const edit = await asking(select);
    await resolve(edit.id, { resolution: "answered", value: "ship" });
    expect(await edit.run.done).toMatchObject({ code: EXIT.ok, stdout: "ship\n" });

    const own = await asking(select);
    await resolve(own.id, { resolution: "answered", value: "hold until Friday" });
    const text = await own.run.done;
    expect(text.code, text.stderr).toBe(EXIT.offMenu);
    // stdout stays the bare answer (a script reads the text after seeing 8); stderr marks it.
    expect(text.stdout).toBe("hold until Friday\n");
    expect(text.stderr).toContain(`${own.id} answered in the person's own words (human:alice): not one of the options`);
    const again = await ma2h(["wait", own.id], env());
    expect(again).toMatchObject({ code: EXIT.offMenu, stdout: "hold until Friday\n" });
    expect(again.stderr).toContain("own words");

    // confirm --allow-edit: an own-words answer is no approve (non-zero) and no deny either.
    const confirm = await asking(["ask", "confirm", "Deploy 144?", "--allow-edit"]);
    await resolve(confirm.id, { resolution: "answered", value: "only after 18:00" });
    expect(await confirm.run.done).toMatchObject({ code: EXIT.offMenu, stdout: "only after 18:00\n" });
  });

  it("input prints the answer object as JSON; the schema comes from --field", async () => {
    const ask = await asking([
      "ask",
      "input",
      "Release notes?",
      "--field",
      "summary:string:required",
      "--field",
      "risk:integer",
    ]);
    const msg = await hub.agent(A, "acme").get(`/v1/messages/${ask.id}`);
    expect(msg.body.request.schema).toEqual({
      type: "object",
      properties: { summary: { type: "string" }, risk: { type: "integer" } },
      required: ["summary"],
    });
    await resolve(ask.id, { resolution: "answered", value: { summary: "Faster builds", risk: 2 } });
    const done = await ask.run.done;
    expect(done.code, done.stderr).toBe(EXIT.ok);
    expect(JSON.parse(done.stdout)).toEqual({ summary: "Faster builds", risk: 2 });
  });

  it("declined, cancelled, and expired with the default applied all exit 3", async () => {
    const declined = await asking(["ask", "confirm", "Rotate keys?"]);
    await resolve(declined.id, { resolution: "declined" });
    const d = await declined.run.done;
    expect(d).toMatchObject({ code: EXIT.notAnswered, stdout: "" });
    expect(d.stderr).toContain(`${declined.id} declined by human:alice`);

    const cancelled = await asking(["ask", "select", "Pick", "--option", "a", "--option", "b"]);
    const c = await ma2h(["cancel", cancelled.id], env());
    expect(c).toMatchObject({ code: EXIT.ok, stdout: `${cancelled.id} cancelled\n` });
    expect((await cancelled.run.done).code).toBe(EXIT.notAnswered);

    const t0 = Date.now();
    const expiring = await asking(["ask", "confirm", "Merge?", "--timeout", "2s", "--default", "approve"]);
    const msg = await hub.agent(A, "acme").get(`/v1/messages/${expiring.id}`);
    expect(Date.parse(msg.body.expires_at) - t0).toBeGreaterThan(1000);
    expect(Date.parse(msg.body.expires_at) - t0).toBeLessThan(4000);
    expect(msg.body.request.default_on_expire).toBe("approve");
    const e = await expiring.run.done;
    // The default is printed (it is the outcome), but an expiry is never a yes: exit 3 (§6 fail-closed).
    expect(e).toMatchObject({ code: EXIT.notAnswered, stdout: "approve\n" });
    expect(e.stderr).toContain("default applied");
  }, 60_000);
});

describe("ask --timeout on a slow Hub", () => {
  it("stamps expires_at after the capability round trip: a discovery slower than the timeout still asks", async () => {
    const proxy = await startFaultProxy(hub.url);
    try {
      const SLOW_MS = 2500;
      proxy.rule = (req) =>
        req.path.startsWith("/.well-known/ma2h") ? { kind: "forward", delayMs: SLOW_MS } : { kind: "forward" };
      const run = start(["ask", "confirm", "Merge on a slow day?", "--timeout", "2s", "--default", "deny"], {
        ...env(),
        MA2H_URL: proxy.url,
      });
      const [, id] = await run.stderrMatch(/asked (msg_[0-9a-z]+)/u);
      const msg = await hub.agent(A, "acme").get(`/v1/messages/${id}`);
      // The capability fetch took longer than the whole timeout; the expiry still counts from the submit.
      const discovered = proxy.seen.find((s) => s.path.startsWith("/.well-known/ma2h"));
      expect(discovered).toBeDefined();
      expect(Date.parse(msg.body.expires_at) - (discovered?.at ?? 0)).toBeGreaterThanOrEqual(SLOW_MS + 2000 - 50);
      expect(Date.parse(msg.body.expires_at) - Date.parse(msg.body.created_at)).toBe(2000);
      const e = await run.done;
      expect(e).toMatchObject({ code: EXIT.notAnswered, stdout: "deny\n" });
      expect(e.stderr).toContain("default applied");
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

describe("Hub and network errors (exit 4), still open (exit 7)", () => {
  it("a bad key is 4 with the §8.5 code; a Hub that is down is 4 with network_error", async () => {
    const bad = await ma2h(["notify", "hi"], { ...env(), MA2H_API_KEY: "ma2h_wrong" });
    expect(bad.code).toBe(EXIT.hub);
    expect(bad.stdout).toBe("");
    expect(errorLine(bad).code).toBe("unauthenticated");
    const down = await ma2h(["ask", "confirm", "Anyone?"], {
      ...env(),
      MA2H_URL: `http://127.0.0.1:${await freePort()}`,
    });
    expect(down.code).toBe(EXIT.hub);
    expect(errorLine(down).code).toBe("network_error");
    const unknown = await ma2h(["wait", "msg_00000000000000000000000000"], env());
    expect(unknown.code).toBe(EXIT.hub);
    expect(errorLine(unknown).code).toBe("not_found");
  }, 60_000);

  it("wait --timeout with nothing answered exits 7 and the ask stays open; cancel after an answer is already_terminal", async () => {
    const detached = await ma2h(["ask", "confirm", "Later?", "--detach"], env());
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    const t0 = Date.now();
    const waited = await ma2h(["wait", id, "--timeout", "2s"], env());
    expect(waited.code).toBe(EXIT.stillOpen);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
    expect(errorLine(waited)).toEqual({ code: "still_open", message: expect.stringContaining(id) });
    expect((await hub.agent(A, "acme").get(`/v1/messages/${id}`)).body.status).toBe("open");
    await resolve(id, { resolution: "answered", value: "approve" });
    const late = await ma2h(["cancel", id], env());
    expect(late.code).toBe(EXIT.hub);
    expect(errorLine(late).code).toBe("already_terminal");
    expect(await ma2h(["wait", id, "--json"], env())).toMatchObject({ code: 0 });
  }, 30_000);
});

describe("directives", () => {
  it("--follow prints a directive a person authored as one JSON line and acks it; the person sees it acknowledged", async () => {
    const follower = start(["directives", "--follow", "--note", "on it"], env());
    // Its long-poll is parked (it holds a slot of A's cap): the directive arrives while it waits.
    await waitFor(async () => (await parkedStoreTotal(A)) >= 1, { what: "the follower's parked drain" });
    const authored = await person().post("/v1/directives", {
      to: `agent:${A}`,
      title: "Pause deploys",
      body: "Incident on prod.",
      priority: "urgent",
    });
    expect(authored.status).toBe(201);
    const [line] = await follower.lines(1);
    const printed = JSON.parse(line as string);
    expect(printed).toMatchObject({
      type: "directive",
      id: authored.body.id,
      from: "human:alice",
      to: `agent:${A}`,
      title: "Pause deploys",
      body: "Incident on prod.",
    });
    const delivery = await waitUntil(
      async () => (await person().get(`/v1/directives/${authored.body.id}`)).body.delivery as Record<string, unknown>,
      (d) => d.state === "acknowledged",
      { timeout: 10_000, what: "the follower's ack" },
    ).catch(async () => (await person().get(`/v1/directives/${authored.body.id}`)).body.delivery);
    expect(delivery).toMatchObject({ state: "acknowledged", note: "on it" });
    follower.child.kill("SIGTERM");
    expect((await follower.done).code).toBe(0);

    // Without --follow: what is pending now, printed and acked, then exit 0; a second run finds nothing.
    const second = await person().post("/v1/directives", { to: `agent:${A}`, title: "Resume deploys" });
    const once = await ma2h(["directives"], env());
    expect(once.code, once.stderr).toBe(0);
    expect(
      once.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual([second.body.id]);
    expect(await ma2h(["directives"], env())).toMatchObject({ code: 0, stdout: "" });
    expect((await person().get(`/v1/directives/${second.body.id}`)).body.delivery.state).toBe("acknowledged");
  }, 30_000);
});
