import { describe, expect, it } from "vitest";
import { canAccess, groupNav, homeFor, isRole, NAV_ITEMS, navFor } from "./roles";

describe("roles", () => {
  it("gives admin every area", () => {
    expect(navFor("admin").map((i) => i.area)).toEqual(["overview", "deliverability", "events", "sandbox", "inbound", "compose", "templates", "scheduled", "webhooks", "settings"]);
    expect(canAccess("admin", "messages")).toBe(true);
  });

  it("gives support events, messages, compose, templates, scheduled, sandbox and inbound only", () => {
    expect(navFor("support").map((i) => i.area)).toEqual(["events", "sandbox", "inbound", "compose", "templates", "scheduled"]);
    expect(canAccess("support", "messages")).toBe(true);
    expect(canAccess("support", "overview")).toBe(false);
    expect(canAccess("support", "webhooks")).toBe(false);
    expect(canAccess("support", "settings")).toBe(false);
    expect(homeFor("support")).toBe("/events");
  });

  it("gives marketing the overview, deliverability and events only", () => {
    expect(navFor("marketing").map((i) => i.area)).toEqual(["overview", "deliverability", "events"]);
    expect(canAccess("marketing", "messages")).toBe(false);
    expect(canAccess("marketing", "compose")).toBe(false);
    expect(canAccess("marketing", "templates")).toBe(false);
    expect(homeFor("marketing")).toBe("/");
  });

  it("refuses an unknown or missing role", () => {
    expect(isRole("owner")).toBe(false);
    expect(canAccess(undefined, "events")).toBe(false);
  });

  it("groups the navigation under headings, leaving out a group the role has nothing in", () => {
    expect(groupNav(navFor("admin")).map((g) => [g.group, g.items.map((i) => i.area)])).toEqual([
      ["Activity", ["overview", "deliverability", "events", "sandbox", "inbound"]],
      ["Send", ["compose", "templates", "scheduled"]],
      ["Configure", ["webhooks", "settings"]],
    ]);
    expect(groupNav(navFor("marketing")).map((g) => g.group)).toEqual(["Activity"]);
    expect(groupNav(navFor("support")).map((g) => g.group)).toEqual(["Activity", "Send"]);
    expect(groupNav([])).toEqual([]);
  });

  it("keeps each group's entries together in NAV_ITEMS, so the display order is the table's order", () => {
    const flat = groupNav(NAV_ITEMS).flatMap((g) => g.items);
    expect(flat).toEqual([...NAV_ITEMS]);
  });

  it("puts an entry of a later group in its group, whatever its position in the list", () => {
    const items = [
      { group: "Instance" as const, label: "Accounts" },
      { group: "Activity" as const, label: "Events" },
    ];
    expect(groupNav(items).map((g) => g.items.map((i) => i.label))).toEqual([["Events"], ["Accounts"]]);
  });
});
