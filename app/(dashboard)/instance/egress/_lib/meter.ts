/** A volume against its cap as the meter shows it (pure): its text and the filled share (0–100), and whether the cap is reached. */
export function meterOf(used: number, cap: number | null): { text: string; percent: number; full: boolean } {
  if (cap === null) return { text: `${used} / no cap`, percent: 0, full: false };
  if (cap <= 0) return { text: `${used} / 0`, percent: 100, full: true };
  return { text: `${used} / ${cap}`, percent: Math.min(100, Math.round((used / cap) * 100)), full: used >= cap };
}
