import { describe, expect, it, vi } from "vitest";
import { refusingAcceptors, type AcceptanceMonitors } from "./acceptance-refusals";
import type { Acceptance } from "./accept-messages";
import type { UnitAcceptor } from "./send-email";

const acceptance = { messageId: "m1" } as unknown as Acceptance;

function monitors(refusing: { disk?: Error; backlog?: Error } = {}): AcceptanceMonitors {
  const refuser = (err?: Error) => ({
    assertAccepting: () => {
      if (err) throw err;
    },
  });
  return { disk: refuser(refusing.disk), backlog: refuser(refusing.backlog) };
}

describe("refusingAcceptors", () => {
  it("accepts through the one group commit when neither monitor refuses: a message as a unit of one, a batch whole", async () => {
    const unit = vi.fn<UnitAcceptor>(async (u) => u.items.map(() => ({ ok: true as const, usages: [] })));
    const { accept, acceptBatch } = refusingAcceptors(monitors(), unit);
    await expect(accept(acceptance)).resolves.toEqual({ ok: true, usages: [] });
    expect(unit).toHaveBeenLastCalledWith({ items: [acceptance] });
    await expect(acceptBatch({ items: [acceptance, acceptance] })).resolves.toHaveLength(2);
    expect(unit).toHaveBeenCalledTimes(2);
  });

  it("refuses before the group commit, synchronously, the disk first", () => {
    const unit = vi.fn<UnitAcceptor>();
    const disk = new Error("disk");
    const backlog = new Error("backlog");
    for (const [refusing, expected] of [
      [{ disk }, disk],
      [{ backlog }, backlog],
      [{ disk, backlog }, disk],
    ] as const) {
      const { accept, acceptBatch } = refusingAcceptors(monitors(refusing), unit);
      expect(() => accept(acceptance)).toThrow(expected);
      expect(() => acceptBatch({ items: [acceptance] })).toThrow(expected);
    }
    expect(unit).not.toHaveBeenCalled();
  });
});
