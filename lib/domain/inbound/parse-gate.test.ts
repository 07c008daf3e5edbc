import { describe, expect, it } from "vitest";
import { ParseGate } from "./parse-gate";

describe("ParseGate", () => {
  it("lets `running` in, lines up `waiting` more, turns the rest away, and passes a slot on at each release", async () => {
    const gate = new ParseGate(2, 1);
    const a = await gate.enter();
    const b = await gate.enter();
    expect(a && b).toBeTruthy();
    let third: (() => void) | undefined;
    const waiting = gate.enter().then((r) => (third = r));
    expect(await gate.enter()).toBeUndefined();
    await Promise.resolve();
    expect(third).toBeUndefined();
    a!();
    a!(); // a second call frees nothing more
    await waiting;
    expect(third).toBeTypeOf("function");
    // The line is free again: one more waits, the next is turned away.
    const fourth = gate.enter();
    expect(await gate.enter()).toBeUndefined();
    b!();
    expect(await fourth).toBeTypeOf("function");
    third!();
    expect(await gate.enter()).toBeTypeOf("function");
  });
});
