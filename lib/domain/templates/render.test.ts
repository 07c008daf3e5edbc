import { describe, expect, it } from "vitest";
import { renderTemplate, unparsablePart, type TemplateParts } from "./render";

async function rendered(parts: TemplateParts, model: unknown): Promise<TemplateParts> {
  const outcome = await renderTemplate(parts, model);
  if (!outcome.ok) throw new Error(`not rendered: ${JSON.stringify(outcome)}`);
  return outcome.rendered;
}

describe("renderTemplate", () => {
  it("escapes {{name}} in the HTML only: a <script> in a variable stays text there, and as typed in the subject and the plain text", async () => {
    const out = await rendered(
      { subject: "Hello {{name}}", html: "<p>Hello {{name}}</p>", text: "Hello {{name}}" },
      { name: "<script>alert('x')</script> & <b>Ann</b>" },
    );
    expect(out.html).toBe("<p>Hello &lt;script&gt;alert(&#39;x&#39;)&lt;&#x2F;script&gt; &amp; &lt;b&gt;Ann&lt;&#x2F;b&gt;</p>");
    expect(out.subject).toBe("Hello <script>alert('x')</script> & <b>Ann</b>");
    expect(out.text).toBe("Hello <script>alert('x')</script> & <b>Ann</b>");
  });

  it("triple mustache (and {{& name}}) inserts HTML as it is", async () => {
    const out = await rendered({ subject: "s", html: "<div>{{{block}}}|{{& block}}</div>" }, { block: "<b>bold</b>" });
    expect(out.html).toBe("<div><b>bold</b>|<b>bold</b></div>");
  });

  it("renders a missing variable empty, including names of JavaScript's own object members", async () => {
    const out = await rendered(
      { subject: "[{{missing}}][{{a.b.c}}]", text: "[{{constructor}}][{{toString}}][{{__proto__}}][{{hasOwnProperty}}][{{#constructor}}x{{/constructor}}]" },
      { a: {} },
    );
    expect(out.subject).toBe("[][]");
    expect(out.text).toBe("[][][][][]");
  });

  it("renders sections over lists and objects, and inverted sections when a value is missing, false or empty", async () => {
    const parts = {
      subject: "{{#order}}Order {{id}}{{/order}}",
      html: "<ul>{{#items}}<li>{{name}} × {{qty}}</li>{{/items}}</ul>{{^items}}<p>No items</p>{{/items}}",
      text: "{{#vip}}VIP {{/vip}}{{^vip}}Regular {{/vip}}{{#tags}}{{.}},{{/tags}}",
    };
    const full = await rendered(parts, { order: { id: 42 }, items: [{ name: "Tea", qty: 2 }, { name: "<Cake>", qty: 1 }], vip: true, tags: ["a", "b"] });
    expect(full).toEqual({ subject: "Order 42", html: "<ul><li>Tea × 2</li><li>&lt;Cake&gt; × 1</li></ul>", text: "VIP a,b," });
    const empty = await rendered(parts, { items: [], vip: false });
    expect(empty).toEqual({ subject: "", html: "<ul></ul><p>No items</p>", text: "Regular " });
  });

  it("renders an object or a list named as a value empty, numbers and booleans as text", async () => {
    const out = await rendered({ subject: "[{{obj}}][{{list}}][{{n}}][{{t}}]" }, { obj: { x: 1 }, list: [1, 2], n: 1.5, t: true });
    expect(out.subject).toBe("[][][1.5][true]");
    expect(out.html).toBeUndefined();
  });

  it("renders a template kept parsed (the second time) exactly as the first, with each model", async () => {
    const parts = { subject: "Order {{id}}", html: "<p>{{#items}}[{{.}}]{{/items}}{{^items}}none{{/items}}</p>" };
    expect(await rendered(parts, { id: 1, items: ["a"] })).toEqual({ subject: "Order 1", html: "<p>[a]</p>" });
    expect(await rendered(parts, { id: 2 })).toEqual({ subject: "Order 2", html: "<p>none</p>" });
    expect(await rendered(parts, { id: 3, items: ["<b>", "c"] })).toEqual({ subject: "Order 3", html: "<p>[&lt;b&gt;][c]</p>" });
  });

  it("names the part Mustache cannot parse", async () => {
    expect(await unparsablePart({ subject: "ok", html: "<p>{{#open}}</p>", text: "fine" })).toBe("html");
    expect(await unparsablePart({ subject: "{{unclosed", text: "fine" })).toBe("subject");
    expect(await unparsablePart({ subject: "ok", text: "{{#a}}{{/a}}" })).toBeUndefined();
  });

  it("stops nested sections that multiply the work, and output past the largest message", async () => {
    const nested = await renderTemplate({ subject: "s", text: "{{#a}}{{#a}}{{#a}}{{#a}}x{{/a}}{{/a}}{{/a}}{{/a}}" }, { a: Array.from({ length: 200 }, () => 1) });
    expect(nested).toEqual({ ok: false, reason: "steps" });
    const wide = await renderTemplate({ subject: "s", text: "{{#a}}{{big}}{{/a}}" }, { big: "x".repeat(100_000), a: Array.from({ length: 200 }, () => 1) });
    expect(wide).toEqual({ ok: false, reason: "output" });
  }, 60_000);

  it("renders a 1 MB template with a 10,000-item section on a worker, the same as a small one renders here", async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ name: `<n${i}>` }));
    const filler = "<p>Terms and conditions.</p>\n".repeat(36_000);
    const out = await rendered({ subject: "Receipt {{id}}", html: `${filler}<ul>{{#items}}<li>{{name}}</li>{{/items}}</ul>`, text: "{{#items}}{{name}}\n{{/items}}" }, { id: 7, items });
    expect(out.subject).toBe("Receipt 7");
    expect(out.html!.startsWith(filler)).toBe(true);
    expect(out.html!.endsWith("<li>&lt;n9999&gt;</li></ul>")).toBe(true);
    expect(out.text!.split("\n")).toHaveLength(10_001);
  }, 120_000);
});
