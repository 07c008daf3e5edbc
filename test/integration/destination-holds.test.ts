import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../lib/storage/database";
import { createHoldReader, listHolds, placeHold, releaseHolds, type HoldReader } from "../../lib/delivery/destinations/holds";
import { createTestDatabase } from "../support/test-database";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("destination holds (migration 1009)", () => {
  let db: Database;
  let other: Database;
  let reader: HoldReader;

  beforeAll(async () => {
    const url = await createTestDatabase();
    db = openDatabase(url);
    other = openDatabase(url);
    // A refresh far longer than the test: only the announcement can bring a change in time.
    reader = await createHoldReader(db, { refreshMs: 60_000 });
  });
  afterAll(async () => {
    await reader.stop();
    await db.close();
    await other.close();
  });

  it("places, replaces and releases holds by key and account", async () => {
    const first = await placeHold(db, { key: "Example.COM.", source: "operator", placedBy: "cli", reason: "blocked" });
    expect(first).toMatchObject({ key: "example.com", accountId: null, until: null, reason: "blocked", source: "operator" });
    const again = await placeHold(db, { key: "example.com", source: "operator", placedBy: "owner@x.example", reason: "still blocked" });
    expect(again.reason).toBe("still blocked");
    await placeHold(db, { key: "example.com", accountId: A, source: "operator", placedBy: "cli" });
    expect((await listHolds(db)).filter((h) => h.key === "example.com")).toHaveLength(2);

    expect(await releaseHolds(db, "example.com", A)).toHaveLength(1);
    expect((await listHolds(db)).filter((h) => h.key === "example.com")).toHaveLength(1);
    expect(await releaseHolds(db, "EXAMPLE.com")).toHaveLength(1);
    expect(await listHolds(db)).toEqual([]);
  });

  it("an automatic hold never replaces an operator's; an operator's replaces an automatic one", async () => {
    await placeHold(db, { key: "yahoo", source: "operator", placedBy: "cli", reason: "operator" });
    const kept = await placeHold(db, { key: "yahoo", source: "automatic", placedBy: "automatic", reason: "TSS04", until: new Date(Date.now() + 60_000) });
    expect(kept).toMatchObject({ source: "operator", reason: "operator", until: null });
    await releaseHolds(db, "yahoo");

    await placeHold(db, { key: "yahoo", source: "automatic", placedBy: "automatic", reason: "TSS04", until: new Date(Date.now() + 60_000) });
    const replaced = await placeHold(db, { key: "yahoo", source: "operator", placedBy: "cli", reason: "operator" });
    expect(replaced).toMatchObject({ source: "operator", until: null });
    await releaseHolds(db, "yahoo");
  });

  it("refuses a key that names no destination", async () => {
    await expect(placeHold(db, { key: "a b", source: "operator", placedBy: "cli" })).rejects.toThrow(/not a destination key/);
  });

  it("a hold whose end has passed holds nothing", async () => {
    await placeHold(db, { key: "past.example", source: "automatic", placedBy: "automatic", until: new Date(Date.now() - 1000) });
    expect((await listHolds(db)).map((h) => h.key)).not.toContain("past.example");
    await reader.refresh();
    expect(reader.holdFor(["past.example"], A)).toBeUndefined();
    await releaseHolds(db, "past.example");
  });

  it("the reader answers from memory and learns of a hold placed or released elsewhere at once", async () => {
    expect(reader.holdFor(["gmail"], A)).toBeUndefined();
    // Placed through another pool (as another process would): the announcement reloads the reader.
    await placeHold(other, { key: "gmail", accountId: B, source: "operator", placedBy: "cli", reason: "tenant B paused" });
    await until(() => reader.holdFor(["gmail"], B) !== undefined);
    expect(reader.holdFor(["gmail", "gmail-smtp-in.l.google.com"], B)?.reason).toBe("tenant B paused");
    expect(reader.holdFor(["gmail"], A)).toBeUndefined();
    await releaseHolds(other, "gmail", B);
    await until(() => reader.holdFor(["gmail"], B) === undefined);
  });
});
