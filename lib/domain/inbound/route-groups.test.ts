import { describe, expect, it } from "vitest";
import { groupByRoute } from "./route-groups";

const r = (address: string, route: number, mailboxHash = "") => ({ address, mailboxHash, route: { id: route } });

describe("groupByRoute", () => {
  it("makes one group per route, in RCPT order, each recipient once whatever its case", () => {
    const groups = groupByRoute([r("a+1@x", 1, "1"), r("b@y", 2), r("a+2@x", 1, "2"), r("A+1@X", 1, "1"), r("c@y", 2)]);
    expect(groups.map((g) => g.map((x) => x.address))).toEqual([["a+1@x", "a+2@x"], ["b@y", "c@y"]]);
  });

  it("keeps 100 recipients of one route in one group", () => {
    const groups = groupByRoute(Array.from({ length: 100 }, (_, i) => r(`support+${i}@x`, 7, String(i))));
    expect(groups).toHaveLength(1);
    expect(groups[0]!.map((x) => x.mailboxHash)).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
  });
});
