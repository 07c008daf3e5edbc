import { describe, expect, it } from "vitest";
import { concatInTurns, utf8InTurns } from "./bytes-in-turns";

/** Turns of the event loop taken while `work` runs (a timer that counts them). */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  const counting = setInterval(() => turns++, 0);
  try {
    return { value: await work(), turns };
  } finally {
    clearInterval(counting);
  }
}

describe("concatInTurns", () => {
  it("puts many chunks together byte for byte, letting the event loop run while it copies", async () => {
    const chunks = Array.from({ length: 70 }, (_, i) => Buffer.alloc(65_536 + (i % 3), i));
    const { value, turns } = await turnsDuring(() => concatInTurns(chunks));
    expect(value.equals(Buffer.concat(chunks))).toBe(true);
    expect(turns).toBeGreaterThan(0);
    expect((await concatInTurns([Buffer.from("ab"), Buffer.from("c")])).toString()).toBe("abc");
    expect(await concatInTurns([])).toEqual(Buffer.alloc(0));
  });
});

describe("utf8InTurns", () => {
  it("is Buffer.from(text) exactly, whatever character falls on a slice's edge", async () => {
    const MB = 1024 * 1024;
    for (const text of ["", "plain", `${"a".repeat(MB - 1)}😀${"é".repeat(MB)}✓😀`, "😀".repeat(MB), `${"x".repeat(MB - 1)}\ud800`]) {
      const { value } = await turnsDuring(() => utf8InTurns(text));
      expect(value.equals(Buffer.from(text, "utf8")), text.slice(0, 10)).toBe(true);
    }
    expect((await turnsDuring(() => utf8InTurns("ab".repeat(2 * MB)))).turns).toBeGreaterThan(0);
    const parts = [`{"a": "${"é".repeat(MB)}"`, ', "b": 1}'];
    expect((await utf8InTurns(...parts)).equals(Buffer.from(parts.join(""), "utf8"))).toBe(true);
  });
});
