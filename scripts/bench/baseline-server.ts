/**
 * The floor the Hub's submit stands on: a bare node:http server that, per request, reads the body,
 * parses the JSON and does one parameterized INSERT into the same PostgreSQL (pool of 10, like the
 * Hub's), then answers 202. No authentication, validation, idempotency, limits or logging.
 * Usage: node --import tsx scripts/bench/baseline-server.ts <databaseUrl> <port>
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import pg from "pg";

const [databaseUrl, portArg] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
await pool.query(`CREATE TABLE IF NOT EXISTS bench_baseline (
  id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, type TEXT NOT NULL, envelope TEXT NOT NULL, created_at TIMESTAMPTZ(3) NOT NULL)`);

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    let body: { type?: string; agent?: { id?: string } };
    const text = Buffer.concat(chunks).toString("utf8");
    try {
      body = JSON.parse(text);
    } catch {
      res.writeHead(400).end();
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
