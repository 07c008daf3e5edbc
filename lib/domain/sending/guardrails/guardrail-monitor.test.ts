import { describe, expect, it, vi } from "vitest";
import { createGuardrailMonitor } from "./guardrail-monitor";

describe("guardrail monitor", () => {
  it("evaluates a burst of notes once per interval, the last one included", async () => {
    vi.useFakeTimers();
    try {
      const evaluated: string[] = [];
      const monitor = createGuardrailMonitor({ debounceMs: 1000, evaluate: async (id) => void evaluated.push(id), onError: () => {} });
      for (let i = 0; i < 500; i++) monitor.note("a");
      monitor.note("b");
      await vi.advanceTimersByTimeAsync(0);
      expect(evaluated).toEqual(["a", "b"]);
      for (let i = 0; i < 500; i++) monitor.note("a");
      await vi.advanceTimersByTimeAsync(999);
      expect(evaluated).toEqual(["a", "b"]);
      await vi.advanceTimersByTimeAsync(1);
      expect(evaluated).toEqual(["a", "b", "a"]);
      monitor.stop();
      monitor.note("a");
      await vi.advanceTimersByTimeAsync(5000);
      expect(evaluated).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it("reports an evaluation that throws and keeps going", async () => {
    const errors: string[] = [];
    const monitor = createGuardrailMonitor({ debounceMs: 0, evaluate: () => Promise.reject(new Error("down")), onError: (_e, id) => void errors.push(id) });
    monitor.note("a");
    await monitor.settled();
    expect(errors).toEqual(["a"]);
  });
});
