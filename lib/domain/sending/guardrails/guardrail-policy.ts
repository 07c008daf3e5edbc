import type { ReputationStatus, ReputationThresholds, ReputationWindow, ReputationWindowName } from "../../../contract/reputation";

/**
 * The reputation guardrails' arithmetic (docs/adr/0136), pure:
 * - bounce rate = (failed + rejected) / accepted recipients of the window;
 * - complaint rate = complained / delivered recipients of the window;
 * - a window's rates count only once it has at least MinVolume accepted
 *   recipients; a rate past (above) its pause threshold pauses the account,
 *   past its warning threshold (half the pause one) warns.
 */

export interface WindowCounts {
  accepted: number;
  delivered: number;
  failed: number;
  rejected: number;
  complained: number;
}

export const DAY_SECONDS = 86_400;
export const WINDOW_SECONDS: Record<ReputationWindowName, number> = { day: DAY_SECONDS, week: 7 * DAY_SECONDS };

/** The window's start: its length back from now, but never before the last resume (the mail that paused it counts no more). */
export function windowStart(now: number, seconds: number, resumedAt: number | null): number {
  return Math.max(now - seconds, resumedAt ?? 0);
}

const ratio = (n: number, of: number) => (of > 0 ? Math.min(1, n / of) : 0);

export function reputationWindow(c: WindowCounts): ReputationWindow {
  const bounced = c.failed + c.rejected;
  return {
    Sent: c.accepted,
    Delivered: c.delivered,
    Bounced: bounced,
    Complained: c.complained,
    BounceRate: ratio(bounced, c.accepted),
    ComplaintRate: ratio(c.complained, c.delivered),
  };
}

/** The instance's pause rates and volume, or the account's own; warnings at half. */
export function thresholdsOf(pause: { bounceRate: number; complaintRate: number; minVolume: number }): ReputationThresholds {
  return {
    WarnBounceRate: pause.bounceRate / 2,
    PauseBounceRate: pause.bounceRate,
    WarnComplaintRate: pause.complaintRate / 2,
    PauseComplaintRate: pause.complaintRate,
    MinVolume: pause.minVolume,
  };
}

export interface Assessment {
  level: ReputationStatus;
  /** What passed the threshold, in words (undefined when ok). */
  reason?: string;
}

const percent = (r: number) => `${Number((r * 100).toPrecision(3))}%`;

/** The worst of the windows: paused beats warning beats ok; the first rate found past its threshold says why. */
export function assess(windows: Record<ReputationWindowName, ReputationWindow>, t: ReputationThresholds): Assessment {
  let warning: string | undefined;
  for (const name of ["day", "week"] as const) {
    const w = windows[name];
    if (w.Sent < t.MinVolume) continue;
    const rates = [
      { what: "bounce rate", rate: w.BounceRate, of: `${w.Bounced} of ${w.Sent} recipients sent`, pause: t.PauseBounceRate, warn: t.WarnBounceRate },
      { what: "complaint rate", rate: w.ComplaintRate, of: `${w.Complained} complaints of ${w.Delivered} delivered`, pause: t.PauseComplaintRate, warn: t.WarnComplaintRate },
    ];
    for (const r of rates) {
      const words = (threshold: number, kind: string) =>
        `the ${what(name)} ${r.what} is ${percent(r.rate)} (${r.of}), past the ${kind} threshold of ${percent(threshold)}`;
      if (r.rate > r.pause) return { level: "paused", reason: words(r.pause, "pause") };
      if (r.rate > r.warn) warning ??= words(r.warn, "warning");
    }
  }
  return warning ? { level: "warning", reason: warning } : { level: "ok" };
}

const what = (name: ReputationWindowName) => (name === "day" ? "last day's" : "last week's");
