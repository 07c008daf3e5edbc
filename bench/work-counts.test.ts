import { describe, expect, it } from "vitest";
import { describeCounts, parsePerfCsv } from "./work-counts";

describe("perf stat's CSV", () => {
  it("reads the three counts, and nothing from a run that counted none", () => {
    const text = ["", "123456,,raw_syscalls:sys_enter,2000000000,100.00,,", "789,,context-switches,2000000000,100.00,394.5,/sec", "4321,,page-faults,2000000000,100.00,2160.5,/sec", ""].join("\n");
    expect(parsePerfCsv(text)).toEqual({ syscalls: 123456, contextSwitches: 789, pageFaults: 4321 });
    expect(parsePerfCsv("<not supported>,,raw_syscalls:sys_enter,0,100.00,,\n")).toBeUndefined();
  });

  it("prints per message, or why nothing was counted", () => {
    expect(describeCounts({ syscalls: 1000, contextSwitches: 50, pageFaults: 20 }, 10)).toBe("100.0 system calls, 5.0 context switches, 2.0 page faults per message (whole machine)");
    expect(describeCounts({ unavailable: "perf is not installed" }, 10)).toBe("not counted: perf is not installed");
  });
});
