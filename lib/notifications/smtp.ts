/**
 * The email channel's transport: one SMTP send through nodemailer, classified. Sends go over a pool
 * of at most `MA2H_SMTP_CONNECTIONS` SMTP connections per process, each kept open and reused for up
 * to 100 mails (one connection and EHLO/STARTTLS per mail cost more than the mail). A 4xx reply, a
 * timeout or a connection failure is transient (retried with backoff); a 5xx reply is permanent.
 * Nothing of the mail or the SMTP URL (it may hold a password) is ever logged or returned.
 * nodemailer loads with the first send, not with every process that can compose a mail.
 */
import type nodemailer from "nodemailer";
import { env, mailSettings } from "../env";
import { processWide } from "../process-wide";
import type { ComposedMail } from "./compose";
import type { SendResult } from "./send-result";

type Transport = ReturnType<typeof nodemailer.createTransport>;

/** How long a pooled SMTP connection may sit unused before it is closed. */
const IDLE_MS = 1000;

async function transport(smtpUrl: string, timeoutMs: number, connections: number): Promise<Transport> {
  const cache = processWide("ma2h.smtp", () => new Map<string, Transport>());
  const key = `${smtpUrl}|${timeoutMs}|${connections}`;
  let t = cache.get(key);
  if (!t) {
    const { default: nodemailer } = await import("nodemailer");
    // `url` inside the options (not as the first argument, where a second argument would be message
    // defaults): the timeouts bound every exchange, so a stalled server cannot hold a send forever.
    // Pooled: a bounded number of connections, each reused while it lives; a connection the server
    // closed is replaced, and a mail that fails with it is classified (and retried) like any other.
    t = nodemailer.createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: connections,
      maxMessages: 100,
      // A connection idle this long says QUIT: a burst keeps its connections, a quiet Hub holds none.
      idleTimeout: IDLE_MS,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    cache.set(key, t);
  }
  return t;
}

/**
 * The sends in flight, at most the pool's connections: a mail waits here, not in nodemailer's own
 * unbounded queue, and for at most half of `MA2H_SMTP_TIMEOUT_MS` — the row's claim (claims.ts,
 * 2 × the timeout + 1 s) must outlast the wait and the exchange, or the sweep would take it for
 * interrupted and send it again. A mail that found no connection in time is a transient failure
 * (`smtp_busy`), retried with the usual backoff.
 */
const slots = () => processWide("ma2h.smtp-slots", () => ({ busy: 0, waiting: [] as (() => void)[] }));

function acquireSlot(max: number, waitMs: number): Promise<boolean> {
  const s = slots();
  if (s.busy < max) {
    s.busy++;
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const grant = () => {
      clearTimeout(timer);
      s.busy++;
      resolve(true);
    };
    const timer = setTimeout(() => {
      const i = s.waiting.indexOf(grant);
      if (i >= 0) s.waiting.splice(i, 1);
      resolve(false);
    }, waitMs);
    s.waiting.push(grant);
  });
}

function releaseSlot(): void {
  const s = slots();
  s.busy--;
  s.waiting.shift()?.();
}

/** The error class an attempt row keeps: a short code, never a message text. */
export function classify(err: unknown): { transient: boolean; errorClass: string; responseCode: number | null } {
  const e = err as { responseCode?: unknown; code?: unknown };
  const responseCode = typeof e.responseCode === "number" ? e.responseCode : null;
  if (responseCode !== null && responseCode >= 500) return { transient: false, errorClass: "smtp_5xx", responseCode };
  if (responseCode !== null && responseCode >= 400) return { transient: true, errorClass: "smtp_4xx", responseCode };
  const code = typeof e.code === "string" ? e.code : "";
  if (code === "ETIMEDOUT") return { transient: true, errorClass: "timeout", responseCode };
  if (code === "EAUTH") return { transient: true, errorClass: "auth", responseCode };
  if (["ECONNECTION", "ESOCKET", "EDNS", "ETLS", "ECONNREFUSED", "ECONNRESET"].includes(code))
    return { transient: true, errorClass: "connection", responseCode };
  if (code === "EENVELOPE") return { transient: false, errorClass: "envelope", responseCode };
  return { transient: true, errorClass: "other", responseCode };
}

/**
 * A Message-ID under the Hub's host, `<localPart@host>`: the local part is the notification's (or
 * the batch's) id, so a resend of the same mail carries the same one and clients fold duplicates.
 */
export function messageIdFor(localPart: string): string {
  const host = new URL(env().publicUrl).hostname || "ma2h.invalid";
  return `<${localPart}@${host}>`;
}

/**
 * Sends one mail. `messageIdHeader` is the notification row's stable Message-ID: a resend of the
 * same notification (after a crash in the accept window) carries the same one.
 */
export async function sendMail(to: string, mail: ComposedMail, messageIdHeader: string): Promise<SendResult> {
  const settings = mailSettings();
  if (!settings) return { ok: false, transient: false, errorClass: "email_off", responseCode: null };
  if (!(await acquireSlot(settings.connections, settings.timeoutMs / 2)))
    return { ok: false, transient: true, errorClass: "smtp_busy", responseCode: null };
  try {
    const info = await (await transport(settings.smtpUrl, settings.timeoutMs, settings.connections)).sendMail({
      from: settings.from,
      to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      messageId: messageIdHeader,
      headers: { "Auto-Submitted": "auto-generated" },
    });
    const code = /^(\d{3})/.exec(String((info as { response?: unknown }).response ?? ""))?.[1];
    return { ok: true, responseCode: code ? Number(code) : null };
  } catch (err) {
    return { ok: false, ...classify(err) };
  } finally {
    releaseSlot();
  }
}
