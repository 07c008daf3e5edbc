import { describe, expect, it } from "vitest";
import { canAccess, homeFor, isRole, navFor } from "./roles";

describe("roles", () => {
  it("gives admin every area", () => {
    expect(navFor("admin").map((i) => i.area)).toEqual(["overview", "events", "compose", "sandbox", "webhooks", "settings"]);
    expect(canAccess("admin", "messages")).toBe(true);
  });

  it("gives support events, messages, compose and sandbox only", () => {
    expect(navFor("support").map((i) => i.area)).toEqual(["events", "compose", "sandbox"]);
    expect(canAccess("support", "messages")).toBe(true);
    expect(canAccess("support", "overview")).toBe(false);
    expect(canAccess("support", "webhooks")).toBe(false);
    expect(canAccess("support", "settings")).toBe(false);
    expect(homeFor("support")).toBe("/events");
  });

  it("gives marketing the overview and events only", () => {
    expect(navFor("marketing").map((i) => i.area)).toEqual(["overview", "events"]);
    expect(canAccess("marketing", "messages")).toBe(false);
    expect(canAccess("marketing", "compose")).toBe(false);
    expect(homeFor("marketing")).toBe("/");
  });

  it("refuses an unknown or missing role", () => {
    expect(isRole("owner")).toBe(false);
    expect(canAccess(undefined, "events")).toBe(false);
  });
});
