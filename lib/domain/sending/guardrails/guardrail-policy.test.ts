import { describe, expect, it } from "vitest";
import { assess, reputationWindow, thresholdsOf, windowStart, type WindowCounts } from "./guardrail-policy";

const t = thresholdsOf({ bounceRate: 0.05, complaintRate: 0.0008, minVolume: 100 });
const counts = (c: Partial<WindowCounts>): WindowCounts => ({ accepted: 0, delivered: 0, failed: 0, rejected: 0, complained: 0, ...c });
const both = (c: Partial<WindowCounts>) => ({ day: reputationWindow(counts(c)), week: reputationWindow(counts(c)) });

describe("reputation guardrails", () => {
  it("warns at half the pause rates", () => {
    expect(t).toEqual({ WarnBounceRate: 0.025, PauseBounceRate: 0.05, WarnComplaintRate: 0.0004, PauseComplaintRate: 0.0008, MinVolume: 100 });
  });

  it("counts failed and rejected as bounced, of accepted; complaints of delivered", () => {
    expect(reputationWindow(counts({ accepted: 200, delivered: 150, failed: 6, rejected: 4, complained: 3 }))).toEqual({
      Sent: 200,
      Delivered: 150,
      Bounced: 10,
      Complained: 3,
      BounceRate: 0.05,
      ComplaintRate: 0.02,
    });
    expect(reputationWindow(counts({}))).toMatchObject({ BounceRate: 0, ComplaintRate: 0 });
    // Suppression drops are rejected without being accepted: the rate never passes 1.
    expect(reputationWindow(counts({ accepted: 1, rejected: 5 })).BounceRate).toBe(1);
  });

  it("ignores a window below the minimum volume", () => {
    expect(assess(both({ accepted: 99, delivered: 50, failed: 99, complained: 50 }), t)).toEqual({ level: "ok" });
  });

  it("pauses past the pause threshold, not at it", () => {
    expect(assess(both({ accepted: 100, delivered: 95, failed: 5 }), t).level).toBe("warning");
    const paused = assess(both({ accepted: 100, delivered: 94, failed: 6 }), t);
    expect(paused.level).toBe("paused");
    expect(paused.reason).toBe("the last day's bounce rate is 6% (6 of 100 recipients sent), past the pause threshold of 5%");
  });

  it("pauses on complaints of delivered recipients", () => {
    const a = assess(both({ accepted: 2000, delivered: 2000, complained: 2 }), t);
    expect(a).toEqual({ level: "paused", reason: "the last day's complaint rate is 0.1% (2 complaints of 2000 delivered), past the pause threshold of 0.08%" });
    expect(assess(both({ accepted: 2000, delivered: 2000, complained: 1 }), t).level).toBe("warning");
    expect(assess(both({ accepted: 2000, delivered: 2000 }), t).level).toBe("ok");
  });

  it("takes the worst window: a week past the threshold pauses though the day is quiet", () => {
    const windows = { day: reputationWindow(counts({ accepted: 10 })), week: reputationWindow(counts({ accepted: 1000, failed: 80 })) };
    expect(assess(windows, t)).toMatchObject({ level: "paused", reason: expect.stringContaining("last week's bounce rate is 8%") });
  });

  it("starts a window no earlier than the last resume", () => {
    expect(windowStart(1_000_000, 86_400, null)).toBe(913_600);
    expect(windowStart(1_000_000, 86_400, 990_000)).toBe(990_000);
    expect(windowStart(1_000_000, 86_400, 900_000)).toBe(913_600);
  });
});
