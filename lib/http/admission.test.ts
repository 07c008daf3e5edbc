import { describe, expect, it } from "vitest";
import { AccountAdmission, type Entry } from "./admission";

const tick = () => new Promise((r) => setImmediate(r));

/** Entries of `n` requests of `account`, each noted when it is settled. */
function enterMany(admission: AccountAdmission, account: string, n: number) {
  const settled: (Entry | undefined)[] = Array.from({ length: n }, () => undefined);
  const entries = Array.from({ length: n }, (_, i) => admission.enter(account).then((e) => (settled[i] = e)));
  return { settled, entries };
}

describe("AccountAdmission", () => {
  it("lets `inProgress` of one account through, holds the next `waiting` in order and refuses past them at once", async () => {
    const admission = new AccountAdmission({ inProgress: 2, waiting: 2 });
    const { settled } = enterMany(admission, "a", 5);
    await tick();
    expect(settled.map((e) => e?.admitted)).toEqual([true, true, undefined, undefined, false]);
    expect(admission.sizeOf("a")).toEqual({ inProgress: 2, waiting: 2 });

    (settled[1] as Extract<Entry, { admitted: true }>).leave();
    await tick();
    expect(settled.map((e) => e?.admitted)).toEqual([true, true, true, undefined, false]);
    expect(admission.sizeOf("a")).toEqual({ inProgress: 2, waiting: 1 });
  });

  it("gives another account its own places: it never waits behind a full line", async () => {
    const admission = new AccountAdmission({ inProgress: 1, waiting: 1 });
    const attacker = enterMany(admission, "attacker", 3);
    await tick();
    expect(attacker.settled.map((e) => e?.admitted)).toEqual([true, undefined, false]);
    const other = await admission.enter("other");
    expect(other.admitted).toBe(true);
    expect(admission.sizeOf("other")).toEqual({ inProgress: 1, waiting: 0 });
  });

  it("counts a leave once, forgets an empty line and lets everything through when inProgress is 0", async () => {
    const admission = new AccountAdmission({ inProgress: 1, waiting: 0 });
    const first = await admission.enter("a");
    expect((await admission.enter("a")).admitted).toBe(false);
    if (!first.admitted) throw new Error("first refused");
    first.leave();
    first.leave();
    expect(admission.sizeOf("a")).toEqual({ inProgress: 0, waiting: 0 });
    const again = await admission.enter("a");
    expect(again.admitted).toBe(true);
    expect(admission.sizeOf("a")).toEqual({ inProgress: 1, waiting: 0 });

    const off = new AccountAdmission({ inProgress: 0, waiting: 0 });
    const all = await Promise.all(Array.from({ length: 50 }, () => off.enter("a")));
    expect(all.every((e) => e.admitted)).toBe(true);
  });
});
