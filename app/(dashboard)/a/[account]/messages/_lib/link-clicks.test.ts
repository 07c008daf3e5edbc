import { describe, expect, it } from "vitest";
import type { EventRecord } from "@/lib/contract/events";
import { linksWithClicks } from "./link-clicks";

const click = (url: string, type: EventRecord["Event"] = "clicked") => ({ Event: type, Url: url }) as EventRecord;

describe("linksWithClicks", () => {
  it("counts each link's clicked events by its URL", () => {
    const links = [
      { text: "Receipt", href: "https://shop.example/r/1" },
      { text: "Help", href: "https://shop.example/help" },
    ];
    const events = [click("https://shop.example/r/1"), click("https://shop.example/r/1"), click("https://elsewhere.example/"), click("https://shop.example/help", "opened")];
    expect(linksWithClicks(links, events)).toEqual([
      { text: "Receipt", href: "https://shop.example/r/1", clicks: 2 },
      { text: "Help", href: "https://shop.example/help", clicks: 0 },
    ]);
  });

  it("gives a URL that appears twice the same clicks", () => {
    const links = [
      { text: "Top", href: "https://a.example/" },
      { text: "Bottom", href: "https://a.example/" },
    ];
    expect(linksWithClicks(links, [click("https://a.example/")]).map((l) => l.clicks)).toEqual([1, 1]);
  });
});
