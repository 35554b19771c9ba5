/** Stops the Hub processes, the dev IdP and the SMTP server, then drops the run's database (see global-setup.ts). */
import { e2eRuntime } from "./support/runtime";

export default async function globalTeardown(): Promise<void> {
  const rt = e2eRuntime();
  for (const hub of rt.hubs.splice(0).reverse()) await hub.stop().catch(() => undefined);
  await rt.idp?.stop().catch(() => undefined);
  rt.idp = undefined;
  await rt.mail?.close().catch(() => undefined);
  rt.mail = undefined;
  const drop = rt.dropDatabase;
  rt.dropDatabase = undefined;
  await drop?.();
}
