import { describe, expect, it } from "vitest";
import { KIND_ESCALATION, KIND_NEW, KIND_REMINDER } from "./kinds";
import {
  BUILT_IN,
  merge,
  type Preferences,
  partialPreferencesShape,
  planDelivery,
  preferencesShape,
  readPartial,
} from "./preferences";

const NOW = new Date("2031-07-01T12:00:00.000Z"); // 12:00 UTC
const with_ = (over: Parameters<typeof merge>[1]): Preferences => merge(BUILT_IN, over);
const ask = { type: "ask", priority: "normal" } as const;
const urgentAsk = { type: "ask", priority: "urgent" } as const;
const notify = { type: "notify", priority: "normal" } as const;
const plan = (
  p: Preferences,
  item: Parameters<typeof planDelivery>[3],
  kind = KIND_NEW as Parameters<typeof planDelivery>[2],
) => planDelivery(p, "email", kind, item, NOW);

describe("the built-in defaults", () => {
  it("email at once for an ask or task; a notify is opt-in", () => {
    expect(plan(BUILT_IN, ask)).toEqual({ send: true, at: NOW, digest: false });
    expect(plan(BUILT_IN, { type: "task", priority: "low" })).toEqual({ send: true, at: NOW, digest: false });
    expect(plan(BUILT_IN, notify)).toEqual({ send: false, reason: "channel_off" });
  });
});

describe("layers", () => {
  it("the person's choices over the account's over the built-in, field by field", () => {
    const account = with_({ channels: { email: { notify: true, minPriority: "high" } }, timeZone: "Europe/Berlin" });
    const eff = merge(account, { channels: { email: { minPriority: "low" } } });
    expect(eff.channels.email).toEqual({ askTask: true, notify: true, minPriority: "low", digest: "off" });
    expect(eff.timeZone).toBe("Europe/Berlin");
  });

  it("quiet hours are one unit: null turns the account's off, absent keeps them", () => {
    const account = with_({ quietHours: { start: "22:00", end: "07:00", urgentBreaksThrough: true } });
    expect(merge(account, {}).quietHours).toEqual({ start: "22:00", end: "07:00", urgentBreaksThrough: true });
    expect(merge(account, { quietHours: null }).quietHours).toBeNull();
  });

  it("a stored value that no longer fits is read as nothing chosen, not an error", () => {
    expect(readPartial({ channels: { email: { minPriority: "extreme" } } })).toEqual({});
    expect(readPartial(null)).toEqual({});
    expect(readPartial({ timeZone: "Asia/Tokyo" })).toEqual({ timeZone: "Asia/Tokyo" });
  });
});

describe("the shape refuses bad input", () => {
  const good = { ...BUILT_IN, quietHours: { start: "22:00", end: "07:00", urgentBreaksThrough: false } };
  it("accepts a whole, valid set", () => expect(preferencesShape.safeParse(good).success).toBe(true));
  it.each([
    ["an unknown time zone", { ...good, timeZone: "Mars/Base" }],
    ["a time not HH:MM", { ...good, quietHours: { ...good.quietHours, start: "25:00" } }],
    ["a window that starts where it ends", { ...good, quietHours: { ...good.quietHours, end: "22:00" } }],
    ["an unknown priority", { ...good, channels: { email: { ...good.channels.email, minPriority: "meh" } } }],
    ["an unknown digest", { ...good, channels: { email: { ...good.channels.email, digest: "weekly" } } }],
    ["an unknown channel", { ...good, channels: { ...good.channels, pigeon: good.channels.email } }],
    ["a missing field", { ...good, channels: { email: { askTask: true } } }],
  ])("refuses %s", (_what, value) => {
    expect(preferencesShape.safeParse(value).success).toBe(false);
  });
  it("a partial takes any subset, and refuses unknown keys", () => {
    expect(partialPreferencesShape.safeParse({ channels: { email: { notify: true } } }).success).toBe(true);
    expect(partialPreferencesShape.safeParse({ colour: "blue" }).success).toBe(false);
  });
});

describe("the plan", () => {
  it("a channel off for ask/task sends no ask, reminder or escalation", () => {
    const p = with_({ channels: { email: { askTask: false } } });
    for (const kind of [KIND_NEW, KIND_REMINDER, KIND_ESCALATION] as const)
      expect(plan(p, ask, kind)).toEqual({ send: false, reason: "channel_off" });
  });

  it("minimum priority: below it nothing, at or above it at once; an escalation ignores it", () => {
    const p = with_({ channels: { email: { minPriority: "high" } } });
    expect(plan(p, ask)).toEqual({ send: false, reason: "below_min_priority" });
    expect(plan(p, ask, KIND_REMINDER)).toEqual({ send: false, reason: "below_min_priority" });
    expect(plan(p, ask, KIND_ESCALATION)).toEqual({ send: true, at: NOW, digest: false });
    expect(plan(p, { type: "ask", priority: "high" })).toEqual({ send: true, at: NOW, digest: false });
    expect(plan(p, urgentAsk)).toEqual({ send: true, at: NOW, digest: false });
  });

  it("quiet hours hold a normal item until they end; urgent breaks through only when chosen", () => {
    const quiet = { start: "11:00", end: "13:30" }; // NOW is 12:00 UTC
    const breaks = with_({ quietHours: { ...quiet, urgentBreaksThrough: true } });
    const holds = with_({ quietHours: { ...quiet, urgentBreaksThrough: false } });
    const end = new Date("2031-07-01T13:30:00.000Z");
    expect(plan(breaks, ask)).toEqual({ send: true, at: end, digest: false });
    expect(plan(breaks, urgentAsk)).toEqual({ send: true, at: NOW, digest: false });
    expect(plan(holds, urgentAsk)).toEqual({ send: true, at: end, digest: false });
    expect(plan(holds, ask, KIND_REMINDER)).toEqual({ send: true, at: end, digest: false });
  });

  it("quiet hours are read in the person's time zone", () => {
    // 12:00 UTC is 21:00 in Tokyo: inside 20:00–08:00 there, ending 08:00 Tokyo = 23:00 UTC.
    const p = with_({
      timeZone: "Asia/Tokyo",
      quietHours: { start: "20:00", end: "08:00", urgentBreaksThrough: false },
    });
    expect(plan(p, ask)).toEqual({ send: true, at: new Date("2031-07-01T23:00:00.000Z"), digest: false });
    expect(plan(with_({ ...p, timeZone: "UTC" }), ask)).toEqual({ send: true, at: NOW, digest: false });
  });

  it("a notify opted into: at once, or held for the next hourly or daily (08:00 local) digest", () => {
    const on = (digest: "off" | "hourly" | "daily", timeZone = "UTC") =>
      with_({ timeZone, channels: { email: { notify: true, digest } } });
    expect(plan(on("off"), notify)).toEqual({ send: true, at: NOW, digest: false });
    expect(plan(on("hourly"), notify)).toEqual({ send: true, at: new Date("2031-07-01T13:00:00.000Z"), digest: true });
    expect(plan(on("daily"), notify)).toEqual({ send: true, at: new Date("2031-07-02T08:00:00.000Z"), digest: true });
    expect(plan(on("daily", "America/New_York"), notify)).toEqual({
      send: true,
      at: new Date("2031-07-02T12:00:00.000Z"), // 08:00 EDT
      digest: true,
    });
    // The digest setting is about notify only: an ask still comes at once.
    expect(plan(on("daily"), ask)).toEqual({ send: true, at: NOW, digest: false });
  });

  it("a digest boundary inside quiet hours waits for their end", () => {
    const p = with_({
      channels: { email: { notify: true, digest: "hourly" } },
      quietHours: { start: "12:30", end: "14:15", urgentBreaksThrough: true },
    });
    expect(plan(p, notify)).toEqual({ send: true, at: new Date("2031-07-01T14:15:00.000Z"), digest: true });
  });
});

describe("channels other than email", () => {
  const on = (channel: "slack" | "push", digest: "off" | "hourly" | "daily" = "off") =>
    with_({ channels: { [channel]: { notify: true, digest } } });

  it("Slack and push are on for asks and tasks by default; notify is opt-in there too", () => {
    for (const channel of ["slack", "push"] as const) {
      expect(planDelivery(BUILT_IN, channel, KIND_NEW, ask, NOW)).toEqual({ send: true, at: NOW, digest: false });
      expect(planDelivery(BUILT_IN, channel, KIND_NEW, notify, NOW)).toEqual({ send: false, reason: "channel_off" });
    }
  });

  it("a digest chosen for Slack or push is ignored: each notify is told on its own", () => {
    for (const channel of ["slack", "push"] as const)
      expect(planDelivery(on(channel, "daily"), channel, KIND_NEW, notify, NOW)).toEqual({
        send: true,
        at: NOW,
        digest: false,
      });
  });

  it("each channel has its own switches: Slack off leaves email and push as they were", () => {
    const p = with_({ channels: { slack: { askTask: false }, push: { minPriority: "high" } } });
    expect(planDelivery(p, "slack", KIND_NEW, ask, NOW)).toEqual({ send: false, reason: "channel_off" });
    expect(planDelivery(p, "push", KIND_NEW, ask, NOW)).toEqual({ send: false, reason: "below_min_priority" });
    expect(planDelivery(p, "push", KIND_NEW, urgentAsk, NOW)).toEqual({ send: true, at: NOW, digest: false });
    expect(planDelivery(p, "email", KIND_NEW, ask, NOW)).toEqual({ send: true, at: NOW, digest: false });
  });

  it("quiet hours hold every channel alike", () => {
    const p = with_({ quietHours: { start: "11:00", end: "13:00", urgentBreaksThrough: false } });
    const end = new Date("2031-07-01T13:00:00.000Z");
    for (const channel of ["email", "slack", "push"] as const)
      expect(planDelivery(p, channel, KIND_NEW, ask, NOW)).toEqual({ send: true, at: end, digest: false });
  });
});
