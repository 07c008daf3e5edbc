import { describe, expect, it } from "vitest";
import { deliverQueue, MAX_DELIVER_ENTRIES } from "../jobs/deliver";
import { MAX_DELIVER_JOB_BYTES, packDeliverEntries, packDeliverJobsByAccount } from "./deliver-packing";
import { parsePayload } from "./payload";

const entry = (n: number) => ({ messageId: `m${n}`, recipientIds: [n] });
const sized = (n: number, size = 2048) => ({ entry: entry(n), size });
const ids = (jobs: { messages: { messageId: string }[] }[]) => jobs.map((j) => j.messages.map((m) => m.messageId));

describe("packDeliverEntries", () => {
  it("packs the messages of one transaction into one job, in order", () => {
    expect(ids(packDeliverEntries([1, 2, 3, 4].map((n) => sized(n))))).toEqual([["m1", "m2", "m3", "m4"]]);
    expect(packDeliverEntries([])).toEqual([]);
  });

  it("starts a new job at the entry limit", () => {
    const jobs = packDeliverEntries(Array.from({ length: 2 * MAX_DELIVER_ENTRIES + 1 }, (_, n) => sized(n)));
    expect(jobs.map((j) => j.messages.length)).toEqual([MAX_DELIVER_ENTRIES, MAX_DELIVER_ENTRIES, 1]);
    expect(ids(jobs).flat()).toEqual(Array.from({ length: 2 * MAX_DELIVER_ENTRIES + 1 }, (_, n) => `m${n}`));
  });

  it("keeps a job's bytes within the bound; a larger message is a job of its own", () => {
    const half = MAX_DELIVER_JOB_BYTES / 2;
    const jobs = packDeliverEntries([sized(1, half), sized(2, half), sized(3, 1), sized(4, 10 * MAX_DELIVER_JOB_BYTES), sized(5, 1)]);
    expect(ids(jobs)).toEqual([["m1", "m2"], ["m3"], ["m4"], ["m5"]]);
  });

  it("writes jobs the deliver queue's schema reads back unchanged", () => {
    for (const job of packDeliverEntries(Array.from({ length: 40 }, (_, n) => sized(n + 1)))) {
      expect(parsePayload(deliverQueue, job)).toEqual({ ok: true, data: job });
    }
  });
});

describe("packDeliverJobsByAccount", () => {
  it("packs each account's messages into jobs of their own, keyed by the account, in order of first appearance", () => {
    const jobs = packDeliverJobsByAccount([
      { ...sized(1), accountId: "b" },
      { ...sized(2), accountId: "a" },
      { ...sized(3), accountId: "b" },
    ]);
    expect(jobs.map((j) => [j.key, j.payload.messages.map((m) => m.messageId)])).toEqual([
      ["b", ["m1", "m3"]],
      ["a", ["m2"]],
    ]);
    expect(packDeliverJobsByAccount([])).toEqual([]);
  });
});
