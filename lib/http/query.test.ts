import { describe, expect, it } from "vitest";
import { eventsQuerySchema } from "../contract/events";
import { normaliseQuery, queryInput } from "./query";

describe("normaliseQuery", () => {
  it("reads the first of repeated parameters and drops empty ones", () => {
    expect(normaliseQuery({ Event: ["opened", "clicked"], StartFrom: "", RetrieveCount: ["", "7"], MessageID: "m" })).toEqual({
      Event: "opened",
      MessageID: "m",
    });
    expect(normaliseQuery(undefined)).toEqual({});
  });
  it("maps an alias only when the canonical name is absent, and never passes the alias on", () => {
    const aliases = { MessageId: "MessageID" };
    expect(normaliseQuery({ MessageId: "a" }, aliases)).toEqual({ MessageID: "a" });
    expect(normaliseQuery({ MessageId: "a", MessageID: "b" }, aliases)).toEqual({ MessageID: "b" });
    expect(normaliseQuery({ MessageId: "", MessageID: "b" }, aliases)).toEqual({ MessageID: "b" });
  });
  it("keeps prototype-named parameters inert", () => {
    const q = normaliseQuery(JSON.parse('{"__proto__":"1","constructor":"2"}'));
    expect(Object.getPrototypeOf(q)).toBe(null);
    expect(eventsQuerySchema.safeParse(q).success).toBe(true);
  });
});

describe("queryInput", () => {
  it("checks the normalised query with the contract's schema", () => {
    const schema = queryInput(eventsQuerySchema, { MessageId: "MessageID" });
    expect(schema.parse({ RetrieveCount: ["20", "50"], Event: "", MessageId: "x" })).toEqual({ RetrieveCount: 20, MessageID: "x" });
    expect(schema.safeParse({ RetrieveCount: ["0", "5"] }).success).toBe(false);
  });
});
