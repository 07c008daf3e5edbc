"use client";

import { useAccountBase } from "@/components/shell/use-account";
import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";

type State = { phase: "idle" } | { phase: "running"; rows: number; total?: number } | { phase: "done"; rows: number } | { phase: "error"; message: string };

/**
 * Downloads the CSV of the filtered range from the export route, reading the
 * stream to show progress (rows so far against the X-Total-Records header).
 */
export function ExportButton({ search }: { search: string }) {
  const base = useAccountBase();
  const [state, setState] = useState<State>({ phase: "idle" });
  const abort = useRef<AbortController | null>(null);

  async function run() {
    const controller = new AbortController();
    abort.current = controller;
    setState({ phase: "running", rows: 0 });
    try {
      const res = await fetch(`${base}/events/export${search}`, { signal: controller.signal });
      if (!res.ok || !res.body) throw new Error(res.status === 403 ? "Your role may not export events." : `Export failed (HTTP ${res.status}). Try again.`);
      const total = Number(res.headers.get("X-Total-Records")) || undefined;
      const reader = res.body.getReader();
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      let newlines = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value as Uint8Array<ArrayBuffer>);
        for (const byte of value) if (byte === 10) newlines++;
        setState({ phase: "running", rows: Math.max(0, newlines - 1), total });
      }
      const blob = new Blob(chunks, { type: "text/csv" });
      const url = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = url;
      a.download = res.headers.get("Content-Disposition")?.match(/filename="([^"]+)"/)?.[1] ?? "mailroom-events.csv";
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState({ phase: "done", rows: Math.max(0, newlines - 1) });
    } catch (err) {
      if (controller.signal.aborted) setState({ phase: "idle" });
      else setState({ phase: "error", message: (err as Error).message });
    }
  }

  const pct = state.phase === "running" && state.total ? Math.min(100, Math.round((state.rows / state.total) * 100)) : undefined;
  return (
    <div className="flex flex-wrap items-center gap-2">
      {state.phase === "running" ? (
        <>
          <div className="flex items-center gap-2" aria-live="polite">
            <progress className="h-2 w-32" max={100} value={pct} aria-label="Export progress" />
            <span className="text-xs text-slate-600 dark:text-slate-400" data-testid="export-progress">
              {state.rows.toLocaleString("en-US")}
              {state.total !== undefined ? ` of ${state.total.toLocaleString("en-US")}` : ""} rows
            </span>
          </div>
          <Button variant="ghost" size="sm" onClick={() => abort.current?.abort()}>
            Cancel
          </Button>
        </>
      ) : (
        <Button variant="secondary" size="sm" onClick={() => void run()}>
          Export CSV
        </Button>
      )}
      {state.phase === "done" && (
        <span role="status" className="text-xs text-slate-600 dark:text-slate-400">
          Exported {state.rows.toLocaleString("en-US")} rows
        </span>
      )}
      {state.phase === "error" && (
        <span role="alert" className="text-xs text-red-700 dark:text-red-400">
          {state.message}
        </span>
      )}
    </div>
  );
}
