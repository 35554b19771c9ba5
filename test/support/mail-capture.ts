/**
 * A real SMTP server (the `smtp-server` package) that keeps each accepted mail parsed
 * (`mailparser`), for the tests that read what the Hub sends (test/notification*.test.ts,
 * test/email-answer.test.ts, and the e2e global setup). By default it accepts everything; `rcpt`
 * and `data` let a test refuse a recipient, answer a DATA with an error code (4xx transient, 5xx
 * permanent) or hold it unanswered. With `dir`, each accepted mail is also written there as
 * `<n>.eml`, so another process (a Playwright worker) can read it with `readMailDir`.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  to: string;
  at: number;
  mail: ParsedMail;
}

export interface MailCapture {
  /** `smtp://127.0.0.1:<port>`, for the Hub's SMTP_URL. */
  url: string;
  received: CapturedMail[];
  close(): Promise<void>;
}

/** How to answer a DATA: accept it (recorded), hold it unanswered (not recorded), or an SMTP error code. */
export type DataVerdict = "accept" | "hold" | number;

export interface MailCaptureOptions {
  dir?: string;
  /** An SMTP error code to refuse this recipient with at RCPT TO, or undefined to take it. */
  rcpt?: (address: string) => number | undefined;
  /** The answer to one DATA, given its recipients (comma-joined) and raw bytes. */
  data?: (to: string, raw: Buffer) => DataVerdict;
}

function smtpError(code: number): Error {
  return Object.assign(new Error(code >= 500 ? "refused" : "try again later"), { responseCode: code });
}

export async function startMailCapture(options: MailCaptureOptions = {}): Promise<MailCapture> {
  const received: CapturedMail[] = [];
  if (options.dir) mkdirSync(options.dir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = options.rcpt?.(address.address);
      callback(code === undefined ? undefined : smtpError(code));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks);
        const to = session.envelope.rcptTo.map((r) => r.address).join(",");
        const verdict = options.data?.(to, raw) ?? "accept";
        if (verdict === "hold") return; // never answered: the client is left waiting
        if (verdict !== "accept") return callback(smtpError(verdict));
        received.push({ to, at: Date.now(), mail: await simpleParser(raw) });
        if (options.dir) writeFileSync(join(options.dir, `${String(received.length).padStart(6, "0")}.eml`), raw);
        callback();
      });
    },
  });
  // A client that drops its connection mid-session (a SIGKILLed worker) surfaces as the server's
  // "error", which with no listener would be an uncaught exception in the test process.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every mail a capture wrote into `dir` so far, parsed, oldest first. */
export async function readMailDir(dir: string): Promise<ParsedMail[]> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".eml"));
  } catch {
    return [];
  }
  names.sort();
  return Promise.all(names.map((n) => simpleParser(readFileSync(join(dir, n)))));
}

/** The answer links (`…/e/<token>`) in a mail's text part, by option label. */
export function answerLinks(mail: ParsedMail): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of (mail.text ?? "").matchAll(/^- (.+): (\S+\/e\/[A-Za-z0-9_-]+)$/gm))
    out.set(m[1] as string, m[2] as string);
  return out;
}
