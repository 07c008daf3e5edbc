import { meterOf } from "../_lib/meter";

/** Copies against a cap: the numbers, and a bar filled to their share (red at the cap). */
export function VolumeMeter({ used, cap, label }: { used: number; cap: number | null; label: string }) {
  const m = meterOf(used, cap);
  return (
    <div className="flex min-w-36 flex-col gap-1">
      <span className="tabular-nums">{m.text}</span>
      {cap !== null && (
        <div
          role="meter"
          aria-label={label}
          aria-valuemin={0}
          aria-valuemax={cap}
          aria-valuenow={Math.min(used, cap)}
          className="h-1.5 w-full overflow-hidden rounded bg-slate-200 dark:bg-slate-700"
        >
          <div className={m.full ? "h-full bg-red-600" : "h-full bg-indigo-600 dark:bg-indigo-400"} style={{ width: `${m.percent}%` }} />
        </div>
      )}
    </div>
  );
}
