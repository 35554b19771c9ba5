/**
 * The floor the Hub's submit stands on: a bare node:http server that, per request, reads the body,
 * parses the JSON and does one parameterized INSERT into the same PostgreSQL (pool of 10, like the
 * Hub's), then answers 202. No authentication, validation, idempotency, limits or logging. The table,
 * `bench_baseline`, is a migration's: the database must be a migrated one (the benches make theirs so).
 *
 * The mailbox floor (bench:mailbox), on the Hub's own `mailbox_entries` table: `GET /v1/inbox?max=`
 * is the drain's single claiming `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING`
 * answered as JSON, unsigned; `POST /v1/inbox/ack {ids}` is one UPDATE. The bearer is the agent's
 * row id itself — no credential lookup.
 * Usage: node --import tsx scripts/bench/baseline-server.ts <databaseUrl> <port>
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import pg from "pg";

const [databaseUrl, portArg] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });

interface EntryRow {
  id: string;
  seq: string;
  from_actor: string;
  ma2h_version: string;
  content: string;
  created_at: Date;
}

/** The drain's claim, as lib/mailbox/drain.ts issues it, and the delivered directives it returns. */
function drain(agentRowId: string, max: number, res: http.ServerResponse): void {
  const now = new Date();
  pool
    .query<EntryRow>(
      `UPDATE mailbox_entries
          SET state = 'delivered', delivered_at = COALESCE(delivered_at, $2), visible_at = $3, deliveries = deliveries + 1
        WHERE id IN (
          SELECT id FROM mailbox_entries
           WHERE agent_row_id = $1 AND kind = 'directive' AND to_session IS NULL AND state IN ('queued', 'delivered')
             AND visible_at <= $2 AND drop_at > $2
           ORDER BY seq LIMIT $4 FOR UPDATE SKIP LOCKED)
        RETURNING id, seq, from_actor, ma2h_version, content, created_at`,
      [agentRowId, now, new Date(now.getTime() + 60_000), max],
    )
    .then(
      ({ rows }) => {
        rows.sort((a, b) => Number(a.seq) - Number(b.seq));
        const messages = rows.map((r) => ({
          directive: {
            ma2h_version: r.ma2h_version,
            type: "directive",
            id: r.id,
            from: r.from_actor,
            created_at: r.created_at.toISOString(),
            ...JSON.parse(r.content),
          },
        }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ messages }));
      },
      () => res.writeHead(500).end(),
    );
}

function ack(agentRowId: string, ids: string[], res: http.ServerResponse): void {
  const now = new Date();
  pool
    .query(
      `UPDATE mailbox_entries SET state = 'acknowledged', acknowledged_at = $3, ended_at = $3
        WHERE id = ANY($1) AND agent_row_id = $2 AND kind = 'directive' AND state IN ('queued', 'delivered')`,
      [ids, agentRowId, now],
    )
    .then(
      (r) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ acked: r.rowCount })),
      () => res.writeHead(500).end(),
    );
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://baseline");
  const agentRowId = (req.headers.authorization ?? "").replace(/^Bearer /, "");
  if (req.method === "GET" && url.pathname === "/v1/inbox") {
    drain(agentRowId, Number(url.searchParams.get("max") ?? 32), res);
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    let body: { type?: string; agent?: { id?: string }; ids?: string[] };
    const text = Buffer.concat(chunks).toString("utf8");
    try {
      body = JSON.parse(text);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (url.pathname === "/v1/inbox/ack") {
      ack(agentRowId, body.ids ?? [], res);
      return;
    }
    const id = `msg_${randomBytes(16).toString("hex")}`;
    pool
      .query("INSERT INTO bench_baseline (id, agent_id, type, envelope, created_at) VALUES ($1, $2, $3, $4, $5)", [
        id,
        body.agent?.id ?? "",
        body.type ?? "",
        text,
        new Date(),
      ])
      .then(
        () => res.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify({ id, status: "open" })),
        () => res.writeHead(500).end(),
      );
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(portArg), "127.0.0.1", () => process.stdout.write("baseline listening\n"));
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
});
