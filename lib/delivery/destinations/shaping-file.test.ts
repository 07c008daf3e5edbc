import { mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SHAPING_RULES } from "./shaping-defaults";
import { parseShapingText, watchShapingFile } from "./shaping-file";
import { ruleFor, shareOfRules } from "./shaping-rules";

describe("shaping rules", () => {
  it("parses rules and refuses unknown members, bad keys and values", () => {
    expect(parseShapingText('{"gmail":{"messagesPerMinute":100}}')).toEqual({ rules: { gmail: { messagesPerMinute: 100 } } });
    expect(parseShapingText('{"gmail":{"messagesPerMinit":100}}')).toHaveProperty("error");
    expect(parseShapingText('{"Gmail!":{}}')).toHaveProperty("error");
    expect(parseShapingText('{"gmail":{"maxConnections":0}}')).toHaveProperty("error");
    expect(parseShapingText("{")).toHaveProperty("error");
  });

  it("resolves default, then provider, then destination, then domain", () => {
    const rules = { default: { maxConnections: 10, messagesPerMinute: 1 }, gmail: { maxConnections: 5 }, "shop.example": { messagesPerMinute: 7 } };
    expect(ruleFor(rules, ["shop.example", "gmail"])).toEqual({ maxConnections: 5, messagesPerMinute: 7 });
    expect(ruleFor(rules, ["other.example", "mx.other.example"])).toEqual({ maxConnections: 10, messagesPerMinute: 1 });
  });

  it("divides rates and connections among the worker processes, at least 1 each", () => {
    const rules = { gmail: { maxConnections: 5, messagesPerMinute: 600, messagesPerSecond: 1, requireTls: true } };
    expect(shareOfRules(rules, 2)).toEqual({ gmail: { maxConnections: 2, messagesPerMinute: 300, messagesPerSecond: 1, requireTls: true } });
    expect(shareOfRules(rules, 1)).toBe(rules);
  });

  it("re-reads the file when it changes and keeps the last good rules on a bad one", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "shaping-")), "rules.json");
    writeFileSync(file, '{"gmail":{"messagesPerMinute":100}}');
    const source = watchShapingFile(file, { intervalMs: 60_000 });
    try {
      expect(source.rules().gmail).toEqual({ ...DEFAULT_SHAPING_RULES.gmail, messagesPerMinute: 100 });
      expect(source.rules().outlook).toEqual(DEFAULT_SHAPING_RULES.outlook);
    } finally {
      source.stop();
    }
    // A second watcher, with a file made bad after a good read: the good rules stay.
    const warnings: string[] = [];
    const log = { warn: (_o: unknown, m: string) => warnings.push(m), info: () => {} } as never;
    const again = watchShapingFile(file, { intervalMs: 20, log });
    try {
      writeFileSync(file, '{"gmail":{"messagesPerMinute":"fast"}}');
      utimesSync(file, new Date(), new Date(Date.now() + 5000));
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          expect(again.rules().gmail?.messagesPerMinute).toBe(100);
          expect(warnings.some((w) => w.includes("keeping the last good rules"))).toBe(true);
          resolve();
        }, 200),
      );
    } finally {
      setTimeout(() => again.stop(), 300);
    }
  });
});
