/**
 * Files the zero-setup Hub keeps under ./.data/ (its database port and password, a generated
 * AUTH_SECRET), readable without loading the embedded database itself.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A value kept in a file under .data/, created once (mode 0600). */
export function persistedSecret(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

/**
 * For the CLI and other tools run beside an embedded Hub: with no DATABASE_URL, point at the
 * embedded database recorded under ./.data/ (and its generated AUTH_SECRET), if there is one.
 */
export function applyEmbeddedEnvFromDisk(root: string): void {
  const dataRoot = join(root, ".data");
  if (!process.env.DATABASE_URL && existsSync(join(dataRoot, "pg-port")) && existsSync(join(dataRoot, "pg-password"))) {
    const port = readFileSync(join(dataRoot, "pg-port"), "utf8").trim();
    const password = readFileSync(join(dataRoot, "pg-password"), "utf8").trim();
    process.env.DATABASE_URL = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/ma2h`;
  }
  if (!process.env.AUTH_SECRET && existsSync(join(dataRoot, "auth-secret"))) {
    process.env.AUTH_SECRET = readFileSync(join(dataRoot, "auth-secret"), "utf8").trim();
  }
}
