/**
 * TLS helpers for transport tests: a self-signed certificate made with openssl (SAN 127.0.0.1 and
 * localhost), an HTTPS request that trusts exactly that certificate, and the certificate a server
 * presents on a new connection (to see a SIGHUP reload take effect).
 */
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import https from "node:https";
import { join } from "node:path";
import tls from "node:tls";

export interface SelfSigned {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  /** SHA-256 fingerprint, as node:tls reports it (`AB:CD:…`). */
  fingerprint: string;
}

export function makeSelfSigned(dir: string, name: string, cn = "ma2h-test"): SelfSigned {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyFile,
      "-out",
      certFile,
      "-days",
      "2",
      "-subj",
      `/CN=${cn}`,
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ],
    { stdio: "ignore" },
  );
  const cert = readFileSync(certFile);
  return { certFile, keyFile, cert, fingerprint: new X509Certificate(cert).fingerprint256 };
}

export interface HttpsResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One request on a fresh connection (no agent), trusting only `ca`. */
export function httpsRequest(
  url: string,
  ca: Buffer,
  options: { method?: string; token?: string; body?: unknown } = {},
): Promise<HttpsResult> {
  return new Promise((ok, fail) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = https.request(
      url,
      {
        method: options.method ?? "GET",
        ca,
        agent: false,
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
        timeout: 30_000,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () =>
          ok({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", fail);
    req.end(payload);
  });
}

/** The SHA-256 fingerprint of the certificate a new TLS connection to host:port is shown. */
export function presentedFingerprint(port: number, ca: Buffer[]): Promise<string> {
  return new Promise((ok, fail) => {
    const socket = tls.connect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => {
      const fp = socket.getPeerX509Certificate()?.fingerprint256 ?? "";
      socket.end();
      ok(fp);
    });
    socket.on("error", fail);
  });
}
