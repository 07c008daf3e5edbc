import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { htmlToPlainText } from "./html-text";

describe("htmlToPlainText", () => {
  it("keeps the text a reader sees, a line per block and per <br>, entities decoded", async () => {
    const html = `<html><head><title>T</title><style>p { color: red }</style></head><body>
      <h1>Order&nbsp;#42</h1><p>Thank   you,\n Ann &amp; Bob.</p><div>Line one<br>Line two</div>
      <script>alert("no")</script><table><tr><td>SKU-1</td><td>2 ×</td></tr></table><p>Caf&eacute; &lt;ok&gt;</p></body></html>`;
    expect(await htmlToPlainText(html)).toBe("Order #42\n\nThank you, Ann & Bob.\n\nLine one\nLine two\n\nSKU-1 2 ×\n\nCafé <ok>");
    expect(await htmlToPlainText("")).toBe("");
    expect(await htmlToPlainText("just text")).toBe("just text");
    // Empty cells and empty blocks add no run of spaces or of empty lines.
    expect(await htmlToPlainText("<table><tr><td>a</td><td></td><td></td><td>b</td></tr></table>")).toBe("a b");
    expect(await htmlToPlainText("<p>one</p><div></div><p></p><br><br><br><p>two</p>")).toBe("one\n\ntwo");
  });

  it("is linear in the nesting: 1,000,000 nested <div>s and 1,000,000 unclosed <a>s, with no long turn of the event loop", async () => {
    for (const html of [`${"<div>".repeat(1_000_000)}deep${"</div>".repeat(1_000_000)}`, `${"<a ".repeat(1_000_000)}>x`, `${"<script>".repeat(100_000)}hidden`]) {
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      const text = await htmlToPlainText(html);
      h.disable();
      expect(text.length).toBeLessThan(20);
      expect(h.max / 1e6).toBeLessThan(200);
    }
    expect(await htmlToPlainText(`${"<div>".repeat(1_000_000)}deep`)).toBe("deep");
  }, 60_000);
});
