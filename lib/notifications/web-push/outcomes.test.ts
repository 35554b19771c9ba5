/** The push channel's pure rules: RFC 8030 answers per device, the row's result, TTL, Urgency. */
// covers: lib/notifications/web-push/device-send.ts, lib/notifications/web-push/channel.ts, lib/notifications/web-push/payload.ts, lib/notifications/web-push/subscriptions.ts
import { describe, expect, it } from "vitest";
import { rowResult } from "./channel";
import { outcomeForStatus } from "./device-send";
import { MAX_TTL_SECONDS, ttlSeconds, urgencyFor } from "./payload";
import { deviceLabel } from "./subscriptions";

describe("a push service's answer", () => {
  it.each([
    [201, "accepted"],
    [202, "accepted"],
    [404, "gone"],
    [410, "gone"],
    [429, "transient"],
    [500, "transient"],
    [503, "transient"],
    [400, "permanent"],
    [403, "permanent"],
    [413, "permanent"],
    [301, "permanent"],
  ])("%i → %s", (status, kind) => {
    expect(outcomeForStatus(status).kind).toBe(kind);
  });
});

describe("the row's result from its devices", () => {
  const ok = outcomeForStatus(201);
  const gone = outcomeForStatus(410);
  const busy = outcomeForStatus(503);
  const bad = outcomeForStatus(400);
  it("sent when any device accepted, whatever the others said", () => {
    expect(rowResult([gone, busy, ok, bad])).toEqual({ ok: true, responseCode: 201 });
  });
  it("retried when none accepted and one may later", () => {
    expect(rowResult([gone, bad, busy])).toEqual({
      ok: false,
      transient: true,
      errorClass: "push_http_503",
      responseCode: 503,
    });
  });
  it("failed for good otherwise; push_gone when every device is gone; push_no_device with none", () => {
    expect(rowResult([gone, bad])).toMatchObject({ ok: false, transient: false, errorClass: "push_http_400" });
    expect(rowResult([gone, gone])).toEqual({
      ok: false,
      transient: false,
      errorClass: "push_gone",
      responseCode: 410,
    });
    expect(rowResult([])).toEqual({ ok: false, transient: false, errorClass: "push_no_device", responseCode: null });
  });
});

describe("TTL and Urgency", () => {
  const now = new Date("2026-12-03T12:00:00Z");
  it("TTL runs until the item expires, capped at a day, never negative", () => {
    expect(ttlSeconds(null, now)).toBe(MAX_TTL_SECONDS);
    expect(ttlSeconds(new Date("2026-12-03T12:10:00Z"), now)).toBe(600);
    expect(ttlSeconds(new Date("2026-12-09T12:00:00Z"), now)).toBe(MAX_TTL_SECONDS);
    expect(ttlSeconds(new Date("2026-12-03T11:00:00Z"), now)).toBe(0);
  });
  it("urgent → high, low → low, the rest normal (RFC 8030 §5.3)", () => {
    expect(["urgent", "high", "normal", "low"].map(urgencyFor)).toEqual(["high", "normal", "normal", "low"]);
  });
});

describe("a device's label", () => {
  it("names the browser and system, never the whole User-Agent", () => {
    const ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    expect(deviceLabel(ua)).toBe("Chrome on Linux");
    expect(deviceLabel("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe(
      "Firefox on macOS",
    );
    expect(deviceLabel(null)).toBe("A browser");
  });
});
