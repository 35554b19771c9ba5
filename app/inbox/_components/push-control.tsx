"use client";
/**
 * "Notify me on this device" (docs/notifications.md "Browser push"): registers the service
 * worker (public/sw.js), subscribes this browser to Web Push under the Hub's VAPID key and posts the
 * subscription for the signed-in person; shows "On for this device" with "Turn off" while the browser
 * holds one. A browser without service workers or the Push API shows nothing.
 */
import { useCallback, useEffect, useState } from "react";

type State =
  | { kind: "hidden" }
  | { kind: "off" }
  | { kind: "on"; id: string }
  | { kind: "blocked" }
  | { kind: "busy" }
  | { kind: "error"; message: string };

/** Our own routes, same-origin: the referrer policy is loosened so the browser sends its Origin. */
function call(path: string, method: string, body?: unknown): Promise<Response> {
  return fetch(path, {
    method,
    credentials: "same-origin",
    referrerPolicy: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function errorOf(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  return body?.error?.message ?? `the Hub answered ${res.status}`;
}

/** The base64url VAPID key as the bytes `applicationServerKey` takes. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

async function register(sub: PushSubscription): Promise<State> {
  const res = await call("/api/push/subscriptions", "POST", sub.toJSON());
  if (!res.ok) return { kind: "error", message: await errorOf(res) };
  return { kind: "on", id: ((await res.json()) as { id: string }).id };
}

async function registration(): Promise<ServiceWorkerRegistration> {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

export function PushControl() {
  const [state, setState] = useState<State>({ kind: "hidden" });

  useEffect(() => {
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return;
    let live = true;
    (async () => {
      if (Notification.permission === "denied") return setState({ kind: "blocked" });
      // The worker is registered on every signed-in page (components/ServiceWorker.tsx); only a browser
      // that turned push on has a subscription.
      const reg = await navigator.serviceWorker.getRegistration("/");
      const existing = reg ? await reg.pushManager.getSubscription() : null;
      // Posted again: the device may have changed hands (another person signed in on this browser).
      const next = existing ? await register(existing) : { kind: "off" as const };
      if (live) setState(next);
    })().catch(() => live && setState({ kind: "off" }));
    return () => {
      live = false;
    };
  }, []);

  const turnOn = useCallback(async () => {
    setState({ kind: "busy" });
    try {
      const keyRes = await call("/api/push/key", "GET");
      if (!keyRes.ok) return setState({ kind: "error", message: await errorOf(keyRes) });
      const { public_key } = (await keyRes.json()) as { public_key: string };
      const reg = await registration();
      const sub = await reg.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(public_key),
      });
      setState(await register(sub));
    } catch {
      setState(
        Notification.permission === "denied"
          ? { kind: "blocked" }
          : { kind: "error", message: "this browser did not subscribe" },
      );
    }
  }, []);

  const turnOff = useCallback(async (id: string) => {
    setState({ kind: "busy" });
    const res = await call(`/api/push/subscriptions/${encodeURIComponent(id)}`, "DELETE");
    // 404: already removed (in settings, or by the push service) — the browser's copy goes too.
    if (!res.ok && res.status !== 404) return setState({ kind: "error", message: await errorOf(res) });
    const reg = await registration();
    await (await reg.pushManager.getSubscription())?.unsubscribe();
    setState({ kind: "off" });
  }, []);

  if (state.kind === "hidden") return null;
  return (
    <span className="push-control" data-testid="push-control" data-state={state.kind}>
      {state.kind === "on" ? (
        <>
          <span data-testid="push-on">On for this device</span>{" "}
          <button type="button" className="btn" data-testid="push-disable" onClick={() => turnOff(state.id)}>
            Turn off
          </button>
        </>
      ) : state.kind === "blocked" ? (
        <span className="hint">Notifications are blocked in this browser</span>
      ) : (
        <>
          <button
            type="button"
            className="btn"
            data-testid="push-enable"
            disabled={state.kind === "busy"}
            onClick={turnOn}
          >
            Notify me on this device
          </button>
          {state.kind === "error" && (
            <span className="hint" role="alert" data-testid="push-error">
              {" "}
              {state.message}
            </span>
          )}
        </>
      )}
    </span>
  );
}
