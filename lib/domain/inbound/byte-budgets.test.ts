import { describe, expect, it } from "vitest";
import { admitClaims, budgetIdOf, budgetKeysOf, hourStartOf, type BudgetClaim } from "./byte-budgets";

const budgets = { perAddressHour: 100, perAccountHour: 150 };

describe("inbound byte budgets", () => {
  it("lists each counter once, sorted, only for the budgets that are on", () => {
    const claims: BudgetClaim[] = [
      { bytes: 1, address: "10.0.0.2", accounts: ["b", "a", "b"] },
      { bytes: 1, address: "10.0.0.1", accounts: ["a"] },
    ];
    expect(budgetKeysOf(claims, budgets)).toEqual([
      { scope: "account", key: "a" },
      { scope: "account", key: "b" },
      { scope: "address", key: "10.0.0.1" },
      { scope: "address", key: "10.0.0.2" },
    ]);
    expect(budgetKeysOf(claims, { perAddressHour: 0, perAccountHour: 0 })).toEqual([]);
    expect(budgetKeysOf(claims, { perAddressHour: 5, perAccountHour: 0 }).map((k) => k.scope)).toEqual(["address", "address"]);
  });

  it("admits in order while every counter stays within its budget; a refused claim adds nothing", () => {
    const used = new Map([[budgetIdOf({ scope: "address", key: "ip" }), 40]]);
    const claims: BudgetClaim[] = [
      { bytes: 50, address: "ip", accounts: ["a"] }, // address 90, account 50
      { bytes: 20, address: "ip", accounts: ["a"] }, // address 110: refused
      { bytes: 90, address: "other", accounts: ["a"] }, // account 140
      { bytes: 20, address: "third", accounts: ["a"] }, // account 160: refused
      { bytes: 10, address: "ip", accounts: ["a"] }, // address 100, account 150: fits exactly
    ];
    const { refused, added } = admitClaims(claims, used, budgets);
    expect(refused).toEqual([undefined, { scope: "address", key: "ip" }, undefined, { scope: "account", key: "a" }, undefined]);
    expect(added).toEqual([
      { key: { scope: "address", key: "ip" }, bytes: 60 },
      { key: { scope: "account", key: "a" }, bytes: 150 },
      { key: { scope: "address", key: "other" }, bytes: 90 },
    ]);
  });

  it("counts a message once per account even when it reaches two routes of one account; off budgets admit anything", () => {
    const { refused, added } = admitClaims([{ bytes: 100, address: "ip", accounts: ["a", "a"] }], new Map(), { perAddressHour: 0, perAccountHour: 100 });
    expect(refused).toEqual([undefined]);
    expect(added).toEqual([{ key: { scope: "account", key: "a" }, bytes: 100 }]);
    expect(admitClaims([{ bytes: 1e12, address: "ip", accounts: ["a"] }], new Map(), { perAddressHour: 0, perAccountHour: 0 })).toEqual({ refused: [undefined], added: [] });
  });

  it("names the hour by its start", () => {
    expect(hourStartOf(Date.UTC(2026, 0, 1, 10, 59, 59, 999))).toBe(Date.UTC(2026, 0, 1, 10) / 1000);
  });
});
