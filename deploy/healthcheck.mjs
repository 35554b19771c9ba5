// The container's HEALTHCHECK (Dockerfile): GET /healthz on this container's web port. It sends
// X-Forwarded-Proto: https from loopback, which a web behind a trusted proxy (MA2H_TRUST_PROXY=1)
// requires of every request and believes from 127.0.0.1 (the default MA2H_TRUSTED_PROXIES); a web
// that serves HTTPS itself (TLS_CERT_FILE) is asked over HTTPS. Exit 0: healthy; 1: not.
const port = process.env.PORT || "3000";
const tls = Boolean(process.env.TLS_CERT_FILE);
if (tls) process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0"; // loopback to itself: the name is not 127.0.0.1
const url = `${tls ? "https" : "http"}://127.0.0.1:${port}/healthz`;
try {
  const res = await fetch(url, { headers: { "x-forwarded-proto": "https" }, signal: AbortSignal.timeout(4000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
