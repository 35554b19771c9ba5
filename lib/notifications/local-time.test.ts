import { describe, expect, it } from "vitest";
import { instantOf, isTimeZone, minutesOf, nextLocalHour, nextLocalTime, quietUntil, wallAt } from "./local-time";

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;
const q = (now: string, tz: string, start: string, end: string) =>
  iso(quietUntil(at(now), tz, minutesOf(start), minutesOf(end)));

describe("time zones and wall time", () => {
  it("knows IANA zones and refuses others", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("America/St_Johns")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
    expect(isTimeZone("+02:00 or so")).toBe(false);
  });

  it("reads the local wall clock", () => {
    expect(wallAt(at("2031-01-15T12:34:56Z").getTime(), "Asia/Kolkata")).toEqual({
      year: 2031,
      month: 1,
      day: 15,
      hour: 18,
      minute: 4,
      second: 56,
    });
  });

  it("a local time skipped by spring forward moves forward by the gap; a repeated one is the earlier", () => {
    // Berlin, 2031-03-30: 02:00 → 03:00 (+01 → +02). 02:30 does not exist: read as 03:30 +02.
    expect(iso(new Date(instantOf({ year: 2031, month: 3, day: 30, hour: 2, minute: 30 }, "Europe/Berlin")))).toBe(
      "2031-03-30T01:30:00.000Z",
    );
    // Berlin, 2031-10-26: 03:00 → 02:00 (+02 → +01). 02:30 happens twice: the first, at +02.
    expect(iso(new Date(instantOf({ year: 2031, month: 10, day: 26, hour: 2, minute: 30 }, "Europe/Berlin")))).toBe(
      "2031-10-26T00:30:00.000Z",
    );
    // An ordinary time in a half-hour zone.
    expect(iso(new Date(instantOf({ year: 2031, month: 7, day: 1, hour: 9, minute: 0 }, "America/St_Johns")))).toBe(
      "2031-07-01T11:30:00.000Z",
    );
  });
});

describe("quiet hours", () => {
  it("a window within one day: inside until its end, outside elsewhere; the end itself is outside", () => {
    expect(q("2031-07-01T12:00:00Z", "UTC", "09:00", "17:00")).toBe("2031-07-01T17:00:00.000Z");
    expect(q("2031-07-01T09:00:00Z", "UTC", "09:00", "17:00")).toBe("2031-07-01T17:00:00.000Z");
    expect(q("2031-07-01T17:00:00Z", "UTC", "09:00", "17:00")).toBeNull();
    expect(q("2031-07-01T08:59:59Z", "UTC", "09:00", "17:00")).toBeNull();
  });

  it("a window across midnight: late evening ends tomorrow, early morning ends today", () => {
    // New York in July is UTC-4: 23:30 local on the 1st is 03:30Z on the 2nd.
    expect(q("2031-07-02T03:30:00Z", "America/New_York", "22:00", "07:00")).toBe("2031-07-02T11:00:00.000Z");
    // 05:00 local on the 2nd (09:00Z): ends at 07:00 local the same day.
    expect(q("2031-07-02T09:00:00Z", "America/New_York", "22:00", "07:00")).toBe("2031-07-02T11:00:00.000Z");
    // 12:00 local: outside.
    expect(q("2031-07-02T16:00:00Z", "America/New_York", "22:00", "07:00")).toBeNull();
    // The same instant is inside in one zone and outside in another.
    expect(q("2031-07-02T03:30:00Z", "Asia/Tokyo", "22:00", "07:00")).toBeNull(); // 12:30 in Tokyo
  });

  it("the night the clocks change: the end is the local time, whatever the offset does", () => {
    // Berlin, spring forward 2031-03-30 (+01 → +02): 23:00 on the 29th (22:00Z) until 07:00 +02 = 05:00Z.
    expect(q("2031-03-29T22:00:00Z", "Europe/Berlin", "22:00", "07:00")).toBe("2031-03-30T05:00:00.000Z");
    // Fall back 2031-10-26 (+02 → +01): until 07:00 +01 = 06:00Z.
    expect(q("2031-10-25T21:00:00Z", "Europe/Berlin", "22:00", "07:00")).toBe("2031-10-26T06:00:00.000Z");
    // Quiet hours ending at a time the spring-forward night skips: 02:30 → read as 03:30 +02.
    expect(q("2031-03-29T23:30:00Z", "Europe/Berlin", "00:00", "02:30")).toBe("2031-03-30T01:30:00.000Z");
  });
});

describe("digest boundaries", () => {
  it("the top of the next local hour, also in a half-hour zone", () => {
    expect(iso(nextLocalHour(at("2031-07-01T12:00:00Z"), "UTC"))).toBe("2031-07-01T13:00:00.000Z");
    expect(iso(nextLocalHour(at("2031-07-01T12:59:59Z"), "UTC"))).toBe("2031-07-01T13:00:00.000Z");
    // Kolkata is +05:30: 12:10Z is 17:40 local → 18:00 local = 12:30Z.
    expect(iso(nextLocalHour(at("2031-07-01T12:10:00Z"), "Asia/Kolkata"))).toBe("2031-07-01T12:30:00.000Z");
    // 23:20 local → midnight of the next day.
    expect(iso(nextLocalHour(at("2031-07-01T17:50:00Z"), "Asia/Kolkata"))).toBe("2031-07-01T18:30:00.000Z");
  });

  it("the next local time of day: later today, or tomorrow once passed", () => {
    expect(iso(nextLocalTime(at("2031-07-01T05:00:00Z"), "UTC", minutesOf("08:00")))).toBe("2031-07-01T08:00:00.000Z");
    expect(iso(nextLocalTime(at("2031-07-01T08:00:00Z"), "UTC", minutesOf("08:00")))).toBe("2031-07-02T08:00:00.000Z");
    // Tokyo (+09): 08:00 local is 23:00Z the day before.
    expect(iso(nextLocalTime(at("2031-07-01T12:00:00Z"), "Asia/Tokyo", minutesOf("08:00")))).toBe(
      "2031-07-01T23:00:00.000Z",
    );
  });

  it("refuses what is not HH:MM", () => {
    expect(() => minutesOf("24:00")).toThrow();
    expect(() => minutesOf("7:00")).toThrow();
    expect(minutesOf("23:59")).toBe(1439);
  });
});
