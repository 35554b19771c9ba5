/**
 * The setup at the top of most test files, once: this file's own database, its accounts (agents
 * with API keys, humans with personal access tokens), loopback push receivers, and the built Hub —
 * one or more web processes, the `hub` supervisor, a web + worker pair, or nothing (in-process
 * tests). Everything is stopped when the file ends. Call it at the top of the file, before any other
 * hook (it calls useTestDatabase()); the values are live inside hooks and tests only.
 */
import { afterAll, beforeAll } from "vitest";
import { client, startHub, type HubProcess } from "./hub";
import { type InProcessHub, startInProcessHub } from "./in-process-hub";
import { type Human, type Provisioned, provisionAccount } from "./provision";
import { type Pair, startPair } from "./push-kit";
import { type Receiver, startReceiver } from "./receiver";
import { useTestDatabase } from "./test-database";

type Env = Record<string, string | undefined>;

export interface AccountSpec {
  agents: string[];
  humans?: Human[];
}

export interface HubFixtureOptions {
  /** The accounts to provision, in this order: slug → agents and humans. */
  accounts?: Record<string, AccountSpec>;
  /**
   * What runs: "web" (server/web.ts, the default), "hub" (the supervisor), "pair" (web + worker,
   * both ready), "in-process" (the /v1 API served inside the test process by
   * test/support/in-process-hub.ts: no Hub process, the `db` tier), or "none" (the database only).
   */
  server?: "web" | "hub" | "pair" | "in-process" | "none";
  /** How many web (or hub) processes, started together (default 1; "pair" is always one pair). */
  count?: number;
  /** The servers' environment; a function is called once the receivers run (e.g. for their origins). */
  env?: Env | ((hub: HubFixture) => Env);
  /** How many loopback push receivers to start before the server (default none). */
  receivers?: number;
  /** Runs after provisioning and the receivers, before the server: bindings, extra users. */
  setup?: (hub: HubFixture) => Promise<void>;
  /** The signal that stops the servers at the end (default SIGTERM). */
  stopSignal?: NodeJS.Signals;
}

export interface HubFixture {
  readonly databaseUrl: string;
  /** A provisioned account by slug, as a live view (usable at module level, read inside tests). */
  account(slug: string): Provisioned;
  /** The first web (or hub) process; the pair's web. */
  readonly web: HubProcess;
  /** Its base URL. */
  readonly url: string;
  /** All the web (or hub) processes. */
  readonly webs: HubProcess[];
  /** The pair ("pair" only). */
  readonly pair: Pair;
  /** The pair's worker ("pair" only). */
  readonly worker: HubProcess;
  /** The first receiver, and all of them. */
  readonly receiver: Receiver;
  readonly receivers: Receiver[];
  /** A /v1 client of the first web process with an agent's API key. */
  agent(id: string, slug: string): ReturnType<typeof client>;
  /** A /v1 client of the first web process with a human's personal access token. */
  human(handle: string, slug: string): ReturnType<typeof client>;
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined)
    throw new Error(`the hub fixture has no ${what} (outside hooks and tests, or not asked for)`);
  return value;
}

export function useHubFixture(options: HubFixtureOptions = {}): HubFixture {
  const database = useTestDatabase();
  const server = options.server ?? "web";
  const accounts = new Map<string, Provisioned>();
  const receivers: Receiver[] = [];
  const webs: HubProcess[] = [];
  let pair: Pair | undefined;
  let inProcess: InProcessHub | undefined;

  const account = (slug: string) => need(accounts.get(slug), `account ${slug}`);
  const fixture: HubFixture = {
    get databaseUrl() {
      return database.url;
    },
    account(slug) {
      return {
        get slug() {
          return account(slug).slug;
        },
        get keys() {
          return account(slug).keys;
        },
        get tokens() {
          return account(slug).tokens;
        },
      };
    },
    get web() {
      return need(webs[0], "web process");
    },
    get url() {
      return inProcess?.url ?? fixture.web.url;
    },
    webs,
    get pair() {
      return need(pair, "pair");
    },
    get worker() {
      return need(pair, "pair").worker;
    },
    get receiver() {
      return need(receivers[0], "receiver");
    },
    receivers,
    agent: (id, slug) => client(fixture.url, account(slug).keys[id]),
    human: (handle, slug) => client(fixture.url, account(slug).tokens[handle]),
  };

  beforeAll(async () => {
    for (const [slug, spec] of Object.entries(options.accounts ?? {}))
      accounts.set(slug, await provisionAccount(slug, spec.agents, spec.humans ?? []));
    receivers.push(...(await Promise.all(Array.from({ length: options.receivers ?? 0 }, () => startReceiver()))));
    await options.setup?.(fixture);
    const env = typeof options.env === "function" ? options.env(fixture) : (options.env ?? {});
    if (server === "pair") {
      pair = await startPair(database.url, env);
      webs.push(pair.web);
    } else if (server === "in-process") {
      inProcess = await startInProcessHub(database.url, env);
    } else if (server !== "none") {
      const mode = server;
      webs.push(
        ...(await Promise.all(
          Array.from({ length: options.count ?? 1 }, () => startHub({ databaseUrl: database.url, mode, env })),
        )),
      );
    }
  });

  afterAll(async () => {
    const signal = options.stopSignal ?? "SIGTERM";
    if (pair) await Promise.all([pair.web.stop(signal), pair.worker.stop(signal)]);
    else await Promise.all(webs.map((h) => h.stop(signal)));
    await inProcess?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  return fixture;
}
